import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one request and delivers its final response: the seam between the pipeline and the
/// network. ``CurlTransport`` is the default on Linux and ``URLSessionTransport`` on Apple
/// platforms; tests can substitute their own (OspreyTesting's `MockTransport`).
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
    /// A body produced as it is sent (the request's own body is ignored); see ``BodyStream``.
    public var bodyStream: BodyStream?
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
    /// Told how many body bytes went out and came in, as they move (from any thread, often);
    /// download reports count the final response's body only, not redirects'.
    public var progress:
        (@Sendable (TransferProgress.Direction, _ completed: Int64, _ expected: Int64?) -> Void)?
    /// Receives the final response's body instead of memory when it accepts it (a download to
    /// a file); ``maximumResponseBytes`` then limits only what stays in memory.
    public var downloadSink: (any DownloadSink)?
    /// Whether the promise may settle on the thread that completed the exchange (a loop of
    /// ``CurlTransport``) instead of a queue of the transport's own: set when the API completes on
    /// the transport's thread (``APIConfiguration/completesOnTransportThread``). A transport may
    /// ignore it.
    public var settlesOnTransportThread = false

    /// Creates a transport request.
    public init(
        urlRequest: URLRequest,
        bodyFileURL: URL? = nil,
        bodyStream: BodyStream? = nil,
        idleTimeout: TimeInterval? = 60,
        deadline: TimeInterval? = nil,
        maximumResponseBytes: Int? = nil,
        redirectPolicy: RedirectPolicy = .follow(limit: 10),
        sensitiveHeaders: Set<String> = [],
        progress: (@Sendable (TransferProgress.Direction, Int64, Int64?) -> Void)? = nil,
        downloadSink: (any DownloadSink)? = nil
    ) {
        self.urlRequest = urlRequest
        self.bodyFileURL = bodyFileURL
        self.bodyStream = bodyStream
        self.idleTimeout = idleTimeout
        self.deadline = deadline
        self.maximumResponseBytes = maximumResponseBytes
        self.redirectPolicy = redirectPolicy
        self.sensitiveHeaders = sensitiveHeaders
        self.progress = progress
        self.downloadSink = downloadSink
    }
}

/// The final response of an exchange.
public struct TransportResponse: Sendable {
    /// Where the head comes from: a response the transport made, or parts to make one from.
    var head: HTTPResponseSource

    /// The response as Foundation's type. A transport that gave its parts instead (see
    /// ``init(url:statusCode:httpVersion:headers:data:request:bodyWentToSink:)``) has it made
    /// the first time it is read: prefer ``statusCode`` and ``headers`` where they are enough.
    public var response: HTTPURLResponse {
        get { head.response }
        set { head = .made(newValue) }
    }

    /// The status code.
    public var statusCode: Int { head.statusCode }

    /// The header fields, case-insensitive.
    public var headers: HTTPHeaders { head.headers }

    /// The body, when it was kept in memory (empty when a ``DownloadSink`` took it).
    public var data: Data
    /// The request that got this response (after redirects).
    public var request: URLRequest
    /// Whether the request's ``DownloadSink`` received the body (and ended it).
    public var bodyWentToSink: Bool
    /// Where the exchange's time went, when the transport measured it.
    public var metrics: RequestMetrics?
    /// Whether an ``HTTPCache`` answered, and how; nil for an answer from the network.
    public var cacheStatus: CacheStatus?
    /// Why the API's ``HTTPCache`` did not store this response (`not stored: the response sets a
    /// cookie`), when it could have; for logs.
    var cacheNote: String?
    /// The redirects the transport followed before this response, oldest first: each hop's
    /// response (its head; the body is not kept) with the request that got it. Empty when none
    /// was followed. Recorders such as `HARRecorder` and `Cassette` keep each hop as an entry.
    public var redirects: [TransportResponse] = []

    /// Creates a final response, for transports of your own.
    public init(response: HTTPURLResponse, data: Data, request: URLRequest, bodyWentToSink: Bool = false) {
        head = .made(response)
        self.data = data
        self.request = request
        self.bodyWentToSink = bodyWentToSink
    }

    /// Creates a final response from the parts of its head, for transports of your own that read
    /// the head themselves: the `HTTPURLResponse` is made only if someone reads ``response``
    /// (FoundationNetworking's initialiser is costly).
    /// - Parameters:
    ///   - url: The URL that answered.
    ///   - statusCode: The status code.
    ///   - httpVersion: The version as in the status line, such as `HTTP/1.1`.
    ///   - headers: The header fields.
    ///   - data: The body, when kept in memory.
    ///   - request: The request that got this response.
    ///   - bodyWentToSink: Whether the request's ``DownloadSink`` received the body.
    public init(
        url: URL, statusCode: Int, httpVersion: String?, headers: HTTPHeaders, data: Data,
        request: URLRequest,
        bodyWentToSink: Bool = false
    ) {
        head = .parts(
            LazyHTTPResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headers: headers))
        self.data = data
        self.request = request
        self.bodyWentToSink = bodyWentToSink
    }
}

extension TransportResponse {
    /// The response with the transport's measurements and the redirects followed before it.
    func measured(_ metrics: RequestMetrics?, after redirects: [TransportResponse]) -> TransportResponse {
        var measured = self
        measured.metrics = metrics
        measured.redirects = redirects
        return measured
    }

    /// The head of a redirect that was followed, as kept in ``redirects``.
    init(hop head: HTTPResponseSource, request: URLRequest) {
        self.head = head
        data = Data()
        self.request = request
        bodyWentToSink = false
    }
}

/// Where a download's body goes instead of memory, as the transport receives it.
///
/// The transport calls ``begin(_:)`` once the final response's head has arrived (never for a
/// redirect it follows), then, if it returned true, ``write(_:)`` for each piece of the body in
/// order, and ``end()`` once the whole body has arrived; ``abandon()`` if the exchange fails or
/// is cancelled after `begin`. Calls come one at a time.
public protocol DownloadSink: AnyObject, Sendable {
    /// Bytes already held from an earlier attempt, which the body continues (for progress).
    var startOffset: Int64 { get }
    /// The most bytes the body may have (after ``startOffset``); nil for no limit.
    var maximumBytes: Int64? { get }
    /// Whether to receive this response's body (false keeps it in memory, as for an error).
    /// - Throws: To fail the exchange (for example, when the response cannot continue the file).
    func begin(_ response: HTTPURLResponse) throws -> Bool
    /// Writes the next piece of the body.
    func write(_ data: Data) throws
    /// The body is complete.
    func end() throws
    /// The exchange failed or was cancelled after ``begin(_:)``.
    func abandon()
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
