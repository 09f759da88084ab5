import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``EventMonitor`` that keeps the last exchanges an API made as a HAR archive, so that an
/// app can export what happened when a user reports a problem, and a developer can open it in
/// a browser's network panel, Charles, Proxyman or mitmproxy.
///
/// ```swift
/// let recorder = HARRecorder(limit: 200)
/// api.configuration.monitors.append(recorder)
/// // … later, from a "Send diagnostics" button:
/// try recorder.write(to: diagnostics.appendingPathComponent("network.har"))
/// ```
///
/// Memory is bounded: the oldest exchanges go first once there are more than `limit` of them
/// (a redirected one counts once) or their bodies hold more than `byteLimit` bytes. Every
/// attempt with a response is kept (retries included), as is a failure without one (status 0,
/// the error in its comment). Exchanges are kept as their events told them and become entries
/// when ``archive`` is read, so recording adds little to a request; everything that leaves the
/// recorder is redacted (``HARRedaction``; the API's declared sensitive headers too), and
/// ``write(to:)`` refuses an archive in which a configured secret still appears.
/// Bodies of streams and downloads are not kept: they went to the stream or the file.
public final class HARRecorder: EventMonitor, @unchecked Sendable {
    // @unchecked: `state` is the only mutable state and is locked.
    private struct State {
        var kept: [Kept] = []
        var bytes = 0
    }

    /// An exchange as its event told it, turned into entries only when the archive is read:
    /// building and redacting an entry costs about as much as a small request itself.
    private struct Kept {
        var event: APIEvent
        var error: APIError?
        var started: Date
        /// The response body's size, kept when the body is not.
        var responseSize: Int?
        /// The body bytes held, request and response.
        var bytes: Int
    }

    /// The most exchanges kept.
    public let limit: Int
    /// The most body bytes kept, request and response bodies together.
    public let byteLimit: Int
    /// Whether bodies are kept (else only their sizes and types).
    public let includesBodies: Bool
    /// What is redacted in every entry the recorder gives out.
    public let redaction: HARRedaction
    private let state = NSLock()
    private var held = State()

    /// A recorder.
    /// - Parameters:
    ///   - limit: The most exchanges kept.
    ///   - byteLimit: The most body bytes kept.
    ///   - includesBodies: Whether bodies are kept.
    ///   - redaction: What is redacted.
    public init(
        limit: Int = 100, byteLimit: Int = 8 << 20, includesBodies: Bool = true,
        redaction: HARRedaction = HARRedaction()
    ) {
        self.limit = max(0, limit)
        self.byteLimit = max(0, byteLimit)
        self.includesBodies = includesBodies
        self.redaction = redaction
    }

    /// Records the exchange an event ends (a success, a failure, a retry after a response).
    public func receive(_ event: APIEvent) {
        let error: APIError?
        switch event.kind {
        case .succeeded: error = nil
        case .failed(let failure): error = failure
        case .retrying(let failure, _): error = failure
        case .started, .cancelled, .progress: return
        }
        var event = event
        let responseSize = event.responseBody?.count
        if !includesBodies { event.responseBody = nil }
        let bytes =
            includesBodies ? (event.request.httpBody?.count ?? 0) + (event.responseBody?.count ?? 0) : 0
        let duration = event.metrics?.total ?? event.elapsed
        record(
            Kept(
                event: event, error: error, started: Date(timeIntervalSinceNow: -duration),
                responseSize: responseSize, bytes: bytes))
    }

    /// The exchanges kept, oldest first, redacted: a redirected one as an entry per hop, then its
    /// response.
    public var archive: HAR {
        let kept = state.withLock { held.kept }
        return HAR(entries: kept.flatMap(entries))
    }

    /// Writes ``archive`` to `url` (pretty-printed HAR 1.2).
    /// - Throws: ``HARRedaction/SecretFound`` when a configured secret appears (nothing is
    ///   written), or the file system's error.
    public func write(to url: URL) throws {
        let archive = archive
        try redaction.check(archive)
        try archive.encoded().write(to: url, options: .atomic)
    }

    /// Forgets every exchange kept.
    public func removeAll() {
        state.withLock { held = State() }
    }

    /// The entries of an attempt: one per redirect followed, then its response (or its failure).
    private func entries(_ kept: Kept) -> [HAR.Entry] {
        let (event, error, started) = (kept.event, kept.error, kept.started)
        let duration = event.metrics?.total ?? event.elapsed
        let requestBody = includesBodies ? event.request.httpBody : nil
        var redaction = redaction
        redaction.headers.formUnion(event.sensitiveHeaders)
        let hops = HAR.Entry.redirectEntries(
            event.redirects, request: event.request, requestBody: requestBody, started: started)
        let last = Self.finalRequest(of: event)
        var entry: HAR.Entry
        if let response = event.response {
            entry = HAR.Entry(
                request: last, requestBody: HAR.Entry.body(requestBody, of: last, after: event.request),
                response: response,
                responseBody: includesBodies ? event.responseBody : nil, started: started, duration: duration,
                metrics: event.metrics)
            if !includesBodies { entry.response.content.size = kept.responseSize ?? -1 }
        } else {
            entry = HAR.Entry(
                startedDateTime: HAR.timestamp(started), time: duration * 1000,
                request: HAR.Request(event.request, body: requestBody, httpVersion: "HTTP/1.1"),
                response: HAR.Response(
                    status: 0, statusText: "", content: HAR.Content(size: 0, mimeType: "")),
                timings: HAR.Timings(send: 0, wait: duration * 1000, receive: 0))
        }
        if let error { entry.comment = "\(error)" }
        return (hops + [entry]).map { redaction.redact($0) }
    }

    /// The request that got the attempt's response: the attempt's own, or the one its last
    /// redirect led to, made again by the rules the transport followed.
    private static func finalRequest(of event: APIEvent) -> URLRequest {
        guard let last = event.redirects.last else { return event.request }
        switch RedirectRules.decide(
            after: last.response, to: last.request, original: event.request,
            sensitiveHeaders: event.sensitiveHeaders)
        {
        case .follow(let next, _): return next
        case .deliver, .refuse: return last.request
        }
    }

    private func record(_ kept: Kept) {
        state.withLock {
            held.kept.append(kept)
            held.bytes += kept.bytes
            while !held.kept.isEmpty, held.kept.count > limit || held.bytes > byteLimit {
                held.bytes -= held.kept.removeFirst().bytes
            }
        }
    }
}
