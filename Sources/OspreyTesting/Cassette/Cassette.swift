import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An Osprey `HTTPTransport` that records real traffic to a HAR file and replays it: call the
/// real API once, keep its answers, run the tests offline from then on.
///
/// ```swift
/// let cassette = try Cassette(file: fixtures.appendingPathComponent("github.har"))
/// let api = GitHubAPI(transport: cassette)      // records the first time, replays after
/// let repositories = try await api.repositories(of: "apple").value
/// ```
///
/// Requests are matched to recorded ones by ``Matching`` (method and URL by default, the
/// query's order ignored), each recorded exchange answering once, in recorded order, so that
/// repeated identical requests get the answers they got. A request the cassette cannot answer
/// and may not record fails with ``Unmatched``, which shows it and the nearest recorded one.
/// Secrets are redacted before anything is written (`HARRedaction`), and ``save()`` refuses a
/// file in which a configured secret still appears.
///
/// What is replayed: the status, the headers, the body (streamed bodies in the pieces they
/// arrived in, to a stream or a download as the request asks), and with `replaysTiming` the
/// recorded time before the response.
public final class Cassette: CookieJarTransport, SettlesOnItsOwnQueue, @unchecked Sendable {
    // @unchecked: `state` is locked, and `writer` is used only under `saving`.

    /// When the cassette records and when it replays.
    public enum Mode: Sendable {
        /// Records every request when the file does not exist yet; else replays only.
        case once
        /// Replays what matches and records the rest.
        case newEpisodes
        /// Replays only: a request that matches nothing fails.
        case none
        /// Records every request, never replays (the file is rewritten).
        case all
    }

    /// A request the cassette could neither answer nor record.
    public struct Unmatched: Error, Sendable, CustomStringConvertible {
        /// The request, redacted: `GET https://api.example.com/users?page=2`.
        public let request: String
        /// The recorded request most like it, if any.
        public let nearest: String?
        /// The cassette's file.
        public let file: String

        /// What went wrong, with the nearest recorded request.
        public var description: String {
            "the cassette \(file) has no recorded answer for \(request)"
                + (nearest.map { "; the nearest recorded request is \($0)" } ?? "; it holds no requests")
        }
    }

    private struct State {
        /// The entries read from the file, and those recorded and already turned into entries.
        var recorded = RecordedIndex()
        /// Exchanges recorded since: turned into entries (and redacted) only when they are read
        /// or saved, so that recording costs a request almost nothing.
        var fresh: [Exchange] = []
        var unsaved = false
    }

    /// A recorded exchange, as the transport delivered it.
    private struct Exchange {
        var request: URLRequest
        var requestBody: Data?
        var response: TransportResponse
        var chunks: [Int]?
        var chunkTimes: [Double]?
        var responseBody: Data
        var started: Date
        var duration: TimeInterval
    }

    /// The HAR file.
    public let file: URL
    /// The mode.
    public let mode: Mode
    /// How requests are matched.
    public let matching: Matching
    /// What is redacted before anything is written (and before requests are compared).
    public let redaction: HARRedaction
    /// Whether a replay keeps the recorded timing: the head after the recorded wait, each
    /// piece of a streamed body when it arrived, a timeout where the request's idle timeout or
    /// deadline would have cut the recorded exchange short.
    public let replaysTiming: Bool
    /// Whether each recorded exchange is written at once (else on ``save()``). The file is
    /// written whole the first time, then each exchange is appended in place, so the cost of a
    /// save does not grow with the file.
    public let savesEachRecording: Bool

    private let transport: (any HTTPTransport)?
    /// Whether the transport settles on a queue of its own (looked up once: a dynamic cast per
    /// request showed in the recording's cost).
    private let transportSettlesInline: Bool
    private let replays: Bool
    let records: Bool
    private let state: Locked<State>
    /// Held while saving; guards `writer`.
    private let saving = NSLock()
    private var writer: HARFile
    let timers = DispatchQueue(label: "osprey.cassette.timers")

    /// A cassette on `file`.
    /// - Parameters:
    ///   - file: The HAR file: read when it exists, written when something is recorded.
    ///   - mode: When to record and when to replay.
    ///   - transport: The transport that records reach; the platform's default when nil.
    ///   - matching: How requests are matched to recorded ones.
    ///   - redaction: What is redacted before writing.
    ///   - replaysTiming: Whether a replay keeps the recorded timing.
    ///   - savesEachRecording: Whether each recorded exchange is written at once.
    /// - Throws: When the file exists but is not a HAR.
    public init(
        file: URL, mode: Mode = .once, transport: (any HTTPTransport)? = nil,
        matching: Matching = .methodAndURL, redaction: HARRedaction = HARRedaction(),
        replaysTiming: Bool = false, savesEachRecording: Bool = true
    ) throws {
        self.file = file
        self.mode = mode
        self.matching = matching
        self.redaction = redaction
        self.replaysTiming = replaysTiming
        self.savesEachRecording = savesEachRecording
        writer = HARFile(url: file)
        let exists = FileManager.default.fileExists(atPath: file.path)
        var recorded = RecordedIndex()
        if exists && mode != .all {
            for entry in try HAR(data: Data(contentsOf: file)).log.entries {
                recorded.append(entry, redactedRequest: redaction.redact(entry.request), used: false)
            }
        }
        state = Locked(State(recorded: recorded))
        switch mode {
        case .once:
            replays = exists
            records = !exists
        case .newEpisodes:
            replays = true
            records = true
        case .none:
            replays = true
            records = false
        case .all:
            replays = false
            records = true
        }
        let transport = records ? transport ?? DefaultTransport.make() : transport
        self.transport = transport
        transportSettlesInline = transport is any SettlesOnItsOwnQueue
        jar = (transport as? any CookieJarTransport)?.cookies
    }

    /// The wrapped transport's jar, so that an `HTTPCache` above decides on the requests as
    /// recorded (replayed requests send no jar cookies, and replayed `Set-Cookie` values are
    /// redacted, so the jar does not learn them).
    public var cookies: CookieJar? { jar }
    private let jar: CookieJar?

    /// The exchanges held: those read from the file, then those recorded.
    public var entries: [HAR.Entry] {
        let (entries, fresh) = state.withLock { ($0.recorded.entries, $0.fresh) }
        return entries + fresh.flatMap(recordedEntries)
    }

    /// Writes what was recorded (pretty-printed HAR, sorted keys), unless nothing was.
    /// - Throws: `HARRedaction.SecretFound` when a configured secret still appears (nothing
    ///   is written), or the file system's error.
    public func save() throws {
        // One save at a time: two would both write, and both take the same fresh exchanges.
        try saving.withLock { try saveNow() }
    }

    private func saveNow() throws {
        let (entries, fresh, unsaved) = state.withLock { ($0.recorded.entries, $0.fresh, $0.unsaved) }
        guard unsaved else { return }
        let made = fresh.flatMap(recordedEntries)
        // What this cassette wrote before was checked then; the rest is checked now.
        let unchecked = writer.holds(entries.count) ? made : entries + made
        try redaction.check(HAR(entries: unchecked))
        try writer.write(made, after: entries)
        state.withLock {
            // What was recorded meanwhile stays fresh, and unsaved.
            for entry in made { $0.recorded.append(entry, redactedRequest: entry.request, used: true) }
            $0.fresh.removeFirst(fresh.count)
            $0.unsaved = !$0.fresh.isEmpty
        }
    }

    /// Answers `request` from the recording, or sends and records it; see `HTTPTransport`.
    public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        // Only a replay compares: a cassette that records everything need not look (and the
        // transport checks the request).
        guard replays else { return record(request) }
        do {
            try request.validate()
        } catch {
            return Promise(error: error)
        }
        let sent = redaction.redact(HAR.Request(sending: request))
        if let entry = takeRecorded(sent) { return answer(request, from: entry) }
        guard records else { return Promise(error: unmatched(request, sent: sent)) }
        return record(request)
    }

    /// The first unused recorded entry that matches `sent` (redacted), now used.
    func takeRecorded(_ sent: HAR.Request) -> HAR.Entry? {
        state.withLock { $0.recorded.take(sent, matching: matching) }
    }

    /// The error for a request the cassette cannot answer nor record, naming the nearest one.
    func unmatched(_ request: TransportRequest, sent: HAR.Request) -> APIError {
        let nearest = state.withLock { $0.recorded.nearest(to: sent) }
        return APIError.transport(
            underlying: Unmatched(
                request: "\(sent.method) \(sent.url)",
                nearest: nearest.map { "\($0.method) \($0.url)" },
                file: file.path),
            context: APIError.Context(request: request.urlRequest))
    }

    /// Sends `request` through the transport and keeps what came back, before the caller sees it.
    func record(_ request: TransportRequest) -> Promise<TransportResponse> {
        guard let transport else {
            return Promise(
                error: APIError.invalidRequest(reason: "the cassette has no transport to record with"))
        }
        var forwarded = request
        let started = Date()
        let sink = request.downloadSink.map { RecordingSink($0, started: .now()) }
        forwarded.downloadSink = sink
        let requestBody = HAR.Request.body(of: request)
        let (promise, resolver) = Promise<TransportResponse>.pending()
        let sent = transport.send(forwarded)
        resolver.onCancel { sent.cancel() }
        // Where the transport settles when it settles on a queue of its own (keeping what came
        // back is small work); else on the cassette's queue, which the pipeline counts on.
        let settlesInline = transportSettlesInline
        sent.whenSettled { [self, timers] result in
            guard settlesInline else {
                timers.async {
                    self.settle(
                        resolver, with: result, of: request, body: requestBody, sink: sink, started: started)
                }
                return
            }
            settle(resolver, with: result, of: request, body: requestBody, sink: sink, started: started)
        }
        return promise
    }

    private func settle(
        _ resolver: Resolver<TransportResponse>, with result: Result<TransportResponse, any Error>,
        of request: TransportRequest, body requestBody: Data?, sink: RecordingSink?, started: Date
    ) {
        do {
            switch result {
            case .success(let response):
                try keep(response, of: request, body: requestBody, sink: sink, started: started)
                resolver.fulfill(response)
            case .failure(let error) where error is CancellationError:
                resolver.cancel()
            case .failure(let error):
                resolver.reject(error)
            }
        } catch {
            resolver.reject(error)
        }
    }

    private func keep(
        _ response: TransportResponse, of request: TransportRequest, body: Data?, sink: RecordingSink?,
        started: Date
    ) throws {
        let exchange = Exchange(
            request: request.urlRequest, requestBody: body, response: response,
            chunks: response.bodyWentToSink ? sink?.chunks : nil,
            chunkTimes: response.bodyWentToSink ? sink?.chunkTimes : nil,
            responseBody: response.bodyWentToSink ? sink?.received ?? Data() : response.data,
            started: started,
            duration: Date().timeIntervalSince(started))
        state.withLock {
            $0.fresh.append(exchange)
            $0.unsaved = true
        }
        if savesEachRecording { try save() }
    }

    /// The entries of a recorded exchange, redacted: one per redirect followed (the hop's
    /// request and head), then the final response under the request that got it, so that a
    /// replay meets and follows each hop as the transport did.
    private func recordedEntries(_ exchange: Exchange) -> [HAR.Entry] {
        let response = exchange.response
        let hops = HAR.Entry.redirectEntries(
            response.redirects, request: exchange.request, requestBody: exchange.requestBody,
            started: exchange.started)
        let last = response.redirects.isEmpty ? exchange.request : response.request
        let final = HAR.Entry(
            request: last,
            requestBody: HAR.Entry.body(exchange.requestBody, of: last, after: exchange.request),
            response: response, chunks: exchange.chunks, chunkTimes: exchange.chunkTimes,
            responseBody: exchange.responseBody,
            started: exchange.started, duration: exchange.duration)
        return (hops + [final]).map { redaction.redact($0) }
    }
}

extension HAR.Request {
    /// The archive's form of a request about to be sent, body included when it is in memory or
    /// in a file.
    init(sending request: TransportRequest) {
        self.init(request.urlRequest, body: Self.body(of: request), httpVersion: "HTTP/1.1")
    }

    /// The body of a request, when it can be read without consuming it (a stream cannot).
    static func body(of request: TransportRequest) -> Data? {
        if let file = request.bodyFileURL { return try? Data(contentsOf: file, options: .mappedIfSafe) }
        if request.bodyStream != nil { return nil }
        return request.urlRequest.httpBody
    }
}
