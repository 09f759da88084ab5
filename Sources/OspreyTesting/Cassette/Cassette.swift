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
public final class Cassette: CookieJarTransport, @unchecked Sendable {
    // @unchecked: `state` is the only mutable state and is locked.

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
        var entries: [HAR.Entry]
        var used: Set<Int> = []
        var unsaved = false
    }

    /// The HAR file.
    public let file: URL
    /// The mode.
    public let mode: Mode
    /// How requests are matched.
    public let matching: Matching
    /// What is redacted before anything is written (and before requests are compared).
    public let redaction: HARRedaction
    /// Whether a replay waits the recorded time before answering.
    public let replaysTiming: Bool
    /// Whether each recorded exchange is written at once (else on ``save()``).
    public let savesEachRecording: Bool

    private let transport: (any HTTPTransport)?
    private let replays: Bool
    private let records: Bool
    private let state: Locked<State>
    let timers = DispatchQueue(label: "osprey.cassette.timers")

    /// A cassette on `file`.
    /// - Parameters:
    ///   - file: The HAR file: read when it exists, written when something is recorded.
    ///   - mode: When to record and when to replay.
    ///   - transport: The transport that records reach; the platform's default when nil.
    ///   - matching: How requests are matched to recorded ones.
    ///   - redaction: What is redacted before writing.
    ///   - replaysTiming: Whether a replay waits the recorded time before answering.
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
        let exists = FileManager.default.fileExists(atPath: file.path)
        let entries = exists && mode != .all ? try HAR(data: Data(contentsOf: file)).log.entries : []
        state = Locked(State(entries: entries))
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
        self.transport = records ? transport ?? DefaultTransport.make() : transport
    }

    /// The wrapped transport's jar, so that an `HTTPCache` above decides on the requests as
    /// recorded (replayed requests send no jar cookies, and replayed `Set-Cookie` values are
    /// redacted, so the jar does not learn them).
    public var cookies: CookieJar? { (transport as? any CookieJarTransport)?.cookies }

    /// The exchanges held: those read from the file, then those recorded.
    public var entries: [HAR.Entry] { state.withLock { $0.entries } }

    /// Writes what was recorded (pretty-printed HAR, sorted keys), unless nothing was.
    /// - Throws: `HARRedaction.SecretFound` when a configured secret still appears (nothing
    ///   is written), or the file system's error.
    public func save() throws {
        let (entries, unsaved) = state.withLock { ($0.entries, $0.unsaved) }
        guard unsaved else { return }
        let archive = HAR(entries: entries)
        try redaction.check(archive)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try archive.encoded().write(to: file, options: .atomic)
        state.withLock { $0.unsaved = false }
    }

    /// Answers `request` from the recording, or sends and records it; see `HTTPTransport`.
    public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        do {
            try request.validate()
        } catch {
            return Promise(error: error)
        }
        let sent = redaction.redact(HAR.Request(sending: request))
        if replays, let entry = takeMatch(for: sent) {
            return replay(entry, to: request)
        }
        guard records, let transport else {
            let nearest = state.withLock { Self.nearest(to: sent, in: $0.entries) }
            return Promise(
                error: APIError.transport(
                    underlying: Unmatched(
                        request: "\(sent.method) \(sent.url)",
                        nearest: nearest.map { "\($0.method) \($0.url)" },
                        file: file.path),
                    context: APIError.Context(request: request.urlRequest)))
        }
        return record(request, through: transport)
    }

    /// The first unused recorded entry that matches, marked used.
    private func takeMatch(for sent: HAR.Request) -> HAR.Entry? {
        state.withLock { state in
            for (index, entry) in state.entries.enumerated() where !state.used.contains(index) {
                if matching.matches(sent, redaction.redact(entry.request)) {
                    state.used.insert(index)
                    return entry
                }
            }
            return nil
        }
    }

    /// The recorded request most like `sent`: the same method and path first, then the same path.
    private static func nearest(to sent: HAR.Request, in entries: [HAR.Entry]) -> HAR.Request? {
        let sentKey = URLKey(sent.url)
        return entries.map(\.request).max { score($0) < score($1) }
        func score(_ recorded: HAR.Request) -> Int {
            let key = URLKey(recorded.url)
            return (recorded.method == sent.method ? 4 : 0) + (key.base == sentKey.base ? 8 : 0)
                + Set(key.query).intersection(sentKey.query).count
        }
    }

    /// Sends `request` through the transport and keeps what came back.
    private func record(_ request: TransportRequest, through transport: any HTTPTransport) -> Promise<
        TransportResponse
    > {
        var forwarded = request
        let sink = request.downloadSink.map(RecordingSink.init)
        forwarded.downloadSink = sink
        let started = Date()
        let requestBody = HAR.Request.body(of: request)
        return transport.send(forwarded).then { [self] response -> TransportResponse in
            let body = response.bodyWentToSink ? sink?.received ?? Data() : response.data
            // Filed under the request as it was sent, so that sending it again matches; the URL
            // that answered after redirects is kept in the response.
            var entry = HAR.Entry(
                request: request.urlRequest, requestBody: requestBody, response: response.response,
                responseBody: body, chunks: response.bodyWentToSink ? sink?.chunks : nil, started: started,
                duration: Date().timeIntervalSince(started), metrics: response.metrics)
            entry = redaction.redact(entry)
            state.withLock {
                $0.entries.append(entry)
                $0.used.insert($0.entries.count - 1)
                $0.unsaved = true
            }
            if savesEachRecording { try save() }
            return response
        }
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
