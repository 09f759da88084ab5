import Foundation

/// Settings an API applies to every request.
public struct APIConfiguration: Sendable {
    /// Headers sent with every request (the parameters' own win), such as a `User-Agent`.
    public var headers: HTTPHeaders = [:]
    /// How query and form parameters are written.
    public var encoding = ParameterEncoding()
    /// Seconds without progress before a request fails with ``APIError/timedOut(context:)``,
    /// unless its parameters set their own. 60 by default.
    public var timeout: TimeInterval? = 60
    /// Seconds for a whole request, redirects included; no limit by default.
    public var deadline: TimeInterval?
    /// The largest response body accepted; 64 MiB by default.
    public var maximumResponseBytes: Int? = 64 * 1024 * 1024
    /// The largest body a download writes to disk; no limit by default (``maximumResponseBytes``
    /// still limits an error body, which stays in memory).
    public var maximumDownloadBytes: Int64?
    /// Redirects are followed up to 10 times by default.
    public var redirectPolicy = RedirectPolicy.follow(limit: 10)
    /// Status codes that count as success; `200..<300` by default. A `3xx` that was not
    /// followed is not a success.
    public var acceptableStatusCodes: Set<Int> = Set(200..<300)
    /// Header names (in any case) that hold secrets: with the usual credentials (see
    /// ``HTTPHeaders/isSensitive(_:declared:)``) they are removed when a redirect leaves the
    /// original origin, and redacted in logs and cURL commands.
    public var sensitiveHeaders: Set<String> = ["x-api-key", "api-key", "x-auth-token"]
    /// Change each attempt's request before it is sent (tokens, signatures), in order.
    public var adapters: [any RequestAdapter] = []
    /// Decides whether a failed attempt is sent again; none by default. See
    /// ``StandardRetryPolicy``.
    public var retryPolicy: (any RetryPolicy)?
    /// See every attempt and every outcome, such as ``LoggingMonitor``.
    public var monitors: [any EventMonitor] = []
    /// An HTTP cache for the API's requests (RFC 9111), in memory or on disk; none by default.
    public var cache: HTTPCache?
    /// Whether responses are validated and parsed, and the promise settled, on the transport's
    /// thread that completed them (a loop of ``CurlTransport``), saving a hop between threads per
    /// request; false by default. For APIs whose validation, parser, error mapping and monitors
    /// are quick: while they run, every other transfer of that loop waits, so they must never
    /// block. Handlers still run on their queues, never inline; a task awaiting `value` resumes
    /// from where the promise settles. Bodies over 64 KiB, downloads, streams and temporary files
    /// still go to the request queue.
    public var completesOnTransportThread = false

    /// The defaults.
    public init() {}
}
