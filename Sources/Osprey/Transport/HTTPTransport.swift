import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one request and delivers its final response: the seam between the pipeline and the
/// network. ``URLSessionTransport`` is the default; tests can substitute their own.
///
/// The returned promise is fulfilled with the final response whatever its status (status
/// validation is the pipeline's job), rejected with an ``APIError`` for transport failures,
/// and cancelling it cancels the network work.
public protocol HTTPTransport: Sendable {
    /// Sends `request`, following redirects per its policy.
    func send(_ request: TransportRequest) -> Promise<TransportResponse>
}

/// A request with the limits the transport enforces.
public struct TransportRequest: Sendable {
    /// The request.
    public var urlRequest: URLRequest
    /// A file to upload as the body, streamed from disk (the request's own body is ignored).
    public var bodyFileURL: URL?
    /// Seconds without any progress (body bytes sent or received, the response head) before
    /// failing with ``APIError/timedOut(context:)``; nil for none. On Linux, URLSession reports
    /// the head only once it has fully arrived: a head that drips in slowly is not progress, and
    /// only the ``deadline`` limits it.
    public var idleTimeout: TimeInterval?
    /// Seconds for the whole exchange, redirects included; nil for none.
    public var deadline: TimeInterval?
    /// The largest body accepted; nil for no limit.
    public var maximumResponseBytes: Int?
    /// Whether and how far redirects are followed.
    public var redirectPolicy: RedirectPolicy
    /// More headers removed when a redirect leaves the original origin (names in any case);
    /// every header ``HTTPHeaders/isSensitive(_:declared:)`` calls a credential is removed.
    public var sensitiveHeaders: Set<String>

    /// Creates a transport request.
    public init(
        urlRequest: URLRequest,
        bodyFileURL: URL? = nil,
        idleTimeout: TimeInterval? = 60,
        deadline: TimeInterval? = nil,
        maximumResponseBytes: Int? = nil,
        redirectPolicy: RedirectPolicy = .follow(limit: 10),
        sensitiveHeaders: Set<String> = []
    ) {
        self.urlRequest = urlRequest
        self.bodyFileURL = bodyFileURL
        self.idleTimeout = idleTimeout
        self.deadline = deadline
        self.maximumResponseBytes = maximumResponseBytes
        self.redirectPolicy = redirectPolicy
        self.sensitiveHeaders = sensitiveHeaders
    }
}

/// The final response of an exchange.
public struct TransportResponse: Sendable {
    /// The response.
    public var response: HTTPURLResponse
    /// The body.
    public var data: Data
    /// The request that got this response (after redirects).
    public var request: URLRequest

    /// Creates a final response, for transports of your own.
    public init(response: HTTPURLResponse, data: Data, request: URLRequest) {
        self.response = response
        self.data = data
        self.request = request
    }
}

/// What to do with a `3xx` response that has a `Location`.
///
/// Following is done by Osprey itself, the same way on every platform: `307`/`308` keep the
/// method and body, `303` (and `301`/`302` after a `POST`) become a `GET` without body headers,
/// relative locations resolve per RFC 3986, `https` → `http` and non-HTTP schemes are refused,
/// and when the origin (scheme, host, port) changes, every credential header
/// (``HTTPHeaders/isSensitive(_:declared:)``: `Authorization`, `Proxy-Authorization`, `Cookie`,
/// API keys, tokens, and the request's declared sensitive headers) is removed for the rest of
/// the chain.
public enum RedirectPolicy: Sendable, Equatable {
    /// Follow up to `limit` redirects, then fail with ``APIError/redirectRefused(reason:context:)``.
    case follow(limit: Int)
    /// Deliver the `3xx` response itself.
    case doNotFollow
}
