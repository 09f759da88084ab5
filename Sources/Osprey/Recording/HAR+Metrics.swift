import Foundation

// RequestMetrics and HAR timings, both ways: what a transport measured is written as an entry's
// `timings`, and read back from them when a recording is replayed.

extension HAR.Timings {
    /// The timings of `metrics`: lookup, connection and handshake as measured, the time to
    /// the first byte after them as waiting, and the rest as receiving.
    public init(_ metrics: RequestMetrics) {
        func milliseconds(_ seconds: TimeInterval?) -> Double { seconds.map { $0 * 1000 } ?? -1 }
        let setUp = (metrics.domainLookup ?? 0) + (metrics.connect ?? 0) + (metrics.secureConnection ?? 0)
        self.init(
            blocked: -1, dns: milliseconds(metrics.domainLookup),
            connect: metrics.connect.map { ($0 + (metrics.secureConnection ?? 0)) * 1000 } ?? -1,
            send: 0, wait: max(0, metrics.firstByte - setUp) * 1000,
            receive: max(0, metrics.total - metrics.firstByte) * 1000,
            ssl: milliseconds(metrics.secureConnection))
    }

    /// Milliseconds in all: the phases that happened, `ssl` not counted twice.
    public var total: Double {
        [blocked, dns, connect].compactMap { $0 }.filter { $0 > 0 }.reduce(0, +) + send + wait + receive
    }
}

extension RequestMetrics {
    /// The metrics of a recorded exchange, read back from its timings (the inverse of
    /// `HAR.Timings(_:)`): a phase recorded as -1 did not happen, the time to the first byte is
    /// everything before ``HAR/Timings/receive`` of ``HAR/Entry/time``, the sizes are the recorded heads and bodies.
    /// Whether the connection was reused is not recorded, so it is nil.
    /// - Parameter entry: A recorded exchange, from Osprey or another tool.
    public init(recorded entry: HAR.Entry) {
        let timings = entry.timings
        func seconds(_ milliseconds: Double?) -> TimeInterval? {
            milliseconds.flatMap { $0 >= 0 ? $0 / 1000 : nil }
        }
        let secureConnection = seconds(timings.ssl)
        let total = max(0, entry.time) / 1000
        self.init(
            domainLookup: seconds(timings.dns),
            connect: seconds(timings.connect).map { max(0, $0 - (secureConnection ?? 0)) },
            secureConnection: secureConnection,
            firstByte: max(0, total - max(0, timings.receive) / 1000), total: total,
            bytesSent: Int64(max(0, entry.request.headersSize) + max(0, entry.request.bodySize)),
            bytesReceived: Int64(max(0, entry.response.headersSize) + max(0, entry.response.bodySize)),
            reusedConnection: nil, httpVersion: entry.response.httpVersion)
    }
}
