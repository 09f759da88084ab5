import Foundation

/// Where the time of one attempt went, and how many bytes it moved: the final exchange's
/// timings (the one whose response was delivered), with the redirects before it counted.
///
/// Durations are in seconds. Phases that did not happen are nil: no lookup, connection or
/// handshake on a reused connection, no handshake without TLS.
///
/// ```swift
/// api.fetchUser().onSuccess { (response: APIResponse<User>) in
///     if let metrics = response.metrics { print(metrics) }   // "lookup 1.2 ms, connect 0.3 ms, …"
/// }
/// ```
///
/// ``CurlTransport`` measures every field. ``URLSessionTransport`` takes them from
/// `URLSessionTaskMetrics` on Apple platforms; on Linux, FoundationNetworking reports no phases,
/// so only ``firstByte``, ``total`` and the byte counts of the bodies are known there.
public struct RequestMetrics: Sendable, Equatable, CustomStringConvertible {
    /// Seconds resolving the host's name; nil when no lookup was made.
    public var domainLookup: TimeInterval?
    /// Seconds opening the connection, after the lookup; nil on a reused connection.
    public var connect: TimeInterval?
    /// Seconds in the TLS handshake, after connecting; nil without TLS or on a reused connection.
    public var secureConnection: TimeInterval?
    /// Seconds from the exchange's start until the first byte of the response.
    public var firstByte: TimeInterval
    /// Seconds from the exchange's start until its last byte.
    public var total: TimeInterval
    /// Bytes sent: the request's head (when the transport knows it) and body.
    public var bytesSent: Int64
    /// Bytes received: the response's head (when the transport knows it) and body, as on the wire.
    public var bytesReceived: Int64
    /// Whether the exchange went out on a connection that was already open; nil when unknown.
    public var reusedConnection: Bool?
    /// The protocol that carried the exchange, such as `HTTP/1.1` or `HTTP/2`; nil when unknown.
    public var httpVersion: String?
    /// Redirects followed before this exchange.
    public var redirects: Int

    /// Creates metrics, for transports of your own.
    public init(
        domainLookup: TimeInterval? = nil, connect: TimeInterval? = nil,
        secureConnection: TimeInterval? = nil,
        firstByte: TimeInterval, total: TimeInterval, bytesSent: Int64, bytesReceived: Int64,
        reusedConnection: Bool?, httpVersion: String?, redirects: Int = 0
    ) {
        self.domainLookup = domainLookup
        self.connect = connect
        self.secureConnection = secureConnection
        self.firstByte = firstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.reusedConnection = reusedConnection
        self.httpVersion = httpVersion
        self.redirects = redirects
    }

    /// `lookup 1.2 ms, connect 0.3 ms, TLS 4.1 ms, first byte 7.9 ms, total 8.2 ms, 312 B sent,
    /// 2104 B received, new connection, HTTP/1.1`: the phases that happened, then the rest.
    public var description: String {
        var parts: [String] = []
        if let domainLookup { parts.append("lookup \(Self.milliseconds(domainLookup))") }
        if let connect { parts.append("connect \(Self.milliseconds(connect))") }
        if let secureConnection { parts.append("TLS \(Self.milliseconds(secureConnection))") }
        parts.append("first byte \(Self.milliseconds(firstByte))")
        parts.append("total \(Self.milliseconds(total))")
        parts.append("\(bytesSent) B sent")
        parts.append("\(bytesReceived) B received")
        if let reusedConnection { parts.append(reusedConnection ? "reused connection" : "new connection") }
        if let httpVersion { parts.append(httpVersion) }
        if redirects > 0 { parts.append("\(redirects) redirect\(redirects == 1 ? "" : "s")") }
        return parts.joined(separator: ", ")
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }
}
