import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sees what every request does: each attempt starting, each retry, and the outcome, whether
/// success, failure or cancellation.
///
/// Monitors are called on the API's request queue, one event at a time per request: keep them
/// quick, and hand slow work (writing files, sending metrics) to a queue of your own.
public protocol EventMonitor: Sendable {
    /// Receives one event.
    func receive(_ event: APIEvent)
}

/// Something that happened to a request. Its `description` is safe to log: no credentials.
public struct APIEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// An attempt is being sent (after the adapters ran).
        case started
        /// The attempt failed with `error`; the next one starts after `delay` seconds.
        case retrying(after: APIError, delay: TimeInterval)
        /// The request succeeded.
        case succeeded
        /// The request failed for good.
        case failed(APIError)
        /// The request was cancelled.
        case cancelled
        /// Bytes moved (coalesced like `onProgress` reports); `attempt` tells attempts apart.
        case progress(TransferProgress)
    }

    /// What happened.
    public let kind: Kind
    /// The request of the current attempt (it holds credentials: log `description`, not this).
    public let request: URLRequest
    /// The response of the attempt, when one arrived.
    public let response: HTTPURLResponse?
    /// The attempt, from 1.
    public let attempt: Int
    /// Seconds since the request was first started.
    public let elapsed: TimeInterval
    /// The header names the API declared secret (``APIConfiguration/sensitiveHeaders``), for
    /// monitors that show headers: see ``HTTPHeaders/isSensitive(_:declared:)``.
    public let sensitiveHeaders: Set<String>
    /// Where the attempt's time went, for events after its response arrived (succeeded, failed
    /// with a status, retrying after one), when the transport measured it.
    public let metrics: RequestMetrics?
    /// Whether the API's ``HTTPCache`` answered the attempt, and how; nil for the network.
    public let cacheStatus: CacheStatus?
    /// Why the API's ``HTTPCache`` did not store the attempt's response, when it had one to
    /// consider (`not stored: the response sets a cookie`); nil otherwise.
    public internal(set) var cacheNote: String?
    /// The attempt's response body, when the response arrived and its body was kept in memory
    /// (not for a stream or a download, whose body went elsewhere); for monitors that record
    /// traffic, such as ``HARRecorder``.
    public internal(set) var responseBody: Data?
    /// The redirects followed before the attempt's response, oldest first: each hop's head with
    /// the request that got it (see ``TransportResponse/redirects``); for monitors that record
    /// traffic.
    public internal(set) var redirects: [TransportResponse] = []

    /// Creates an event.
    public init(
        kind: Kind, request: URLRequest, response: HTTPURLResponse?, attempt: Int, elapsed: TimeInterval,
        sensitiveHeaders: Set<String> = [], metrics: RequestMetrics? = nil, cacheStatus: CacheStatus? = nil
    ) {
        self.kind = kind
        self.request = request
        self.response = response
        self.attempt = attempt
        self.elapsed = elapsed
        self.sensitiveHeaders = sensitiveHeaders
        self.metrics = metrics
        self.cacheStatus = cacheStatus
    }

    /// `METHOD url -> status: what happened (attempt n, 0.123 s)`, with credentials redacted, the
    /// attempt's ``metrics`` after a semicolon when there are some, and where the cache answered,
    /// `from the cache` or `revalidated by the server`.
    public var description: String {
        var text =
            "\(request.httpMethod ?? "GET") \(request.url.map { Redaction.url($0.absoluteString) } ?? "?")"
        if let response { text += " -> \(response.statusCode)" }
        switch kind {
        case .started: text += ": started"
        case .retrying(let error, let delay):
            text += ": retrying in \(String(format: "%.3f", delay)) s after: \(error)"
        case .succeeded: text += ": succeeded"
        case .failed(let error): text += ": failed: \(error)"
        case .cancelled: text += ": cancelled"
        case .progress(let progress):
            // The attempt is said once, below.
            text += ": \(progress.direction) \(progress.completedBytes)/"
            text += "\(progress.expectedBytes.map(String.init) ?? "?") bytes"
        }
        text += " (attempt \(attempt), \(String(format: "%.3f", elapsed)) s"
        if let metrics { text += "; \(metrics)" }
        switch cacheStatus {
        case .hit?: text += "; from the cache"
        case .revalidated?: text += "; from the cache, revalidated by the server"
        case .miss?: text += "; not in the cache (only-if-cached)"
        case nil: break
        }
        if let cacheNote { text += "; \(cacheNote)" }
        return text + ")"
    }
}

/// An ``EventMonitor`` that writes each event's redacted description, and optionally each
/// attempt's request as a (redacted) cURL command.
///
/// ```swift
/// configuration.monitors = [LoggingMonitor()]            // print
/// configuration.monitors = [LoggingMonitor { logger.debug("\($0)") }]
/// ```
public struct LoggingMonitor: EventMonitor {
    private let includesCURL: Bool
    private let log: @Sendable (String) -> Void

    /// Creates a monitor.
    /// - Parameters:
    ///   - includesCURL: Also log a cURL command for each attempt, credentials redacted.
    ///   - log: Where lines go; `print` by default.
    public init(includesCURL: Bool = false, log: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.includesCURL = includesCURL
        self.log = log
    }

    /// Logs the event (progress reports are left out: there can be many).
    public func receive(_ event: APIEvent) {
        if case .progress = event.kind { return }
        log(event.description)
        if includesCURL, case .started = event.kind {
            log(event.request.cURLDescription(sensitiveHeaders: event.sensitiveHeaders))
        }
    }
}
