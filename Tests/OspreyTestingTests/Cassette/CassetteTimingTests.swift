import Foundation
import Osprey
import Testing

@testable import OspreyTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Cassette: recorded timing and metrics, replayed")
struct CassetteTimingTests {
    /// A cassette holding one feed whose three pieces arrived at 100, 200 and 400 ms, the head at
    /// 60 ms (the times only lower-bound what the tests assert: a timer never fires early).
    private func feedCassette(_ folder: CassetteFolder, chunkTimes: [Double]? = [100, 200, 400]) throws
        -> Cassette
    {
        var entry = HAR.Entry(
            startedDateTime: "2026-12-05T08:00:00.000Z", time: 400,
            request: HAR.Request(method: "GET", url: "http://127.0.0.1:9/feed"),
            response: HAR.Response(
                status: 200, headers: [HAR.Field(name: "Content-Type", value: "text/event-stream")],
                content: HAR.Content(
                    size: 9, mimeType: "text/event-stream", text: "aaabbbccc", chunks: [3, 3, 3],
                    chunkTimes: chunkTimes)),
            timings: HAR.Timings(
                blocked: -1, dns: 4, connect: 16, send: 0, wait: 40, receive: 340, ssl: 10))
        entry.response.bodySize = 9
        try HAR(entries: [entry]).encoded().write(to: folder.file())
        return try Cassette(file: folder.file(), mode: .none, replaysTiming: true)
    }

    private func request(idleTimeout: TimeInterval? = 60, deadline: TimeInterval? = nil, sink: TimedSink)
        -> TransportRequest
    {
        TransportRequest(
            urlRequest: URLRequest(url: URL(string: "http://127.0.0.1:9/feed")!), idleTimeout: idleTimeout,
            deadline: deadline, downloadSink: sink)
    }

    @Test("each piece of a stream is handed over no sooner than it arrived when recorded")
    func piecesKeepTheirTime() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let api = RecordedAPI(baseURL: "http://127.0.0.1:9", transport: try feedCassette(folder))
        let start = ContinuousClock.now
        var arrivals: [(String, Duration)] = []
        for try await piece in api.stream(route: api.get(endpoint: "/feed")) {
            arrivals.append((String(decoding: piece, as: UTF8.self), ContinuousClock.now - start))
        }
        #expect(arrivals.map(\.0) == ["aaa", "bbb", "ccc"])
        for ((_, arrived), recorded) in zip(arrivals, [100, 200, 400]) {
            #expect(arrived >= .milliseconds(recorded), "a piece came before its recorded time")
        }
    }

    @Test("without piece times, the pieces are spread over the recorded receiving time")
    func piecesSpreadWithoutTimes() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let sink = TimedSink()
        let response = try await feedCassette(folder, chunkTimes: nil).send(request(sink: sink)).value
        #expect(response.bodyWentToSink)
        #expect(sink.pieces == ["aaa", "bbb", "ccc"])
        // The head at 60 ms (400 - 340), then one piece each third of the 340 ms that follow.
        let head = try #require(sink.began)
        #expect(head >= .milliseconds(60))
        for (arrived, recorded) in zip(sink.arrivals, [173, 286, 400]) {
            #expect(arrived >= .milliseconds(recorded))
        }
    }

    @Test("a recorded gap longer than the idle timeout times out there, the pieces before it delivered")
    func idleTimeoutBetweenPieces() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let sink = TimedSink()
        // 100 ms between the first pieces, 200 ms before the last: a 150 ms idle limit ends it.
        let result = await (try feedCassette(folder)).send(request(idleTimeout: 0.15, sink: sink)).result
        guard case .failure(APIError.timedOut) = result else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        #expect(sink.pieces == ["aaa", "bbb"])
        #expect(sink.abandoned)
        #expect(!sink.ended)
    }

    @Test("a deadline shorter than the recorded exchange times out; one longer does not")
    func deadline() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let cut = TimedSink()
        let result = await (try feedCassette(folder)).send(request(deadline: 0.3, sink: cut)).result
        guard case .failure(APIError.timedOut) = result else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        #expect(cut.pieces == ["aaa", "bbb"])
        let whole = TimedSink()
        _ = try await feedCassette(folder).send(request(deadline: 5, sink: whole)).value
        #expect(whole.pieces == ["aaa", "bbb", "ccc"])
        #expect(whole.ended)
    }

    @Test("the schedule: the head after the wait, each piece at its time, cut by the first limit broken")
    func schedule() throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let entry = try #require(try feedCassette(folder).entries.first)
        func steps(_ schedule: ReplaySchedule) -> [String] {
            schedule.steps.map { "\($0.step)@\(Int(($0.at * 1000).rounded()))" }
        }
        let whole = ReplaySchedule(recorded: entry, pieces: 3, idleTimeout: 60, deadline: nil)
        #expect(steps(whole) == ["head@60", "piece(0)@100", "piece(1)@200", "piece(2)@400", "end@400"])
        var untimed = entry
        untimed.response.content.chunkTimes = nil
        let spread = ReplaySchedule(recorded: untimed, pieces: 2, idleTimeout: nil, deadline: nil)
        #expect(steps(spread) == ["head@60", "piece(0)@230", "piece(1)@400", "end@400"])
        let idle = ReplaySchedule(recorded: entry, pieces: 3, idleTimeout: 0.15, deadline: nil)
        #expect(steps(idle) == ["head@60", "piece(0)@100", "piece(1)@200", "timeout@350"])
        let late = ReplaySchedule(recorded: entry, pieces: 3, idleTimeout: 0.05, deadline: nil)
        #expect(steps(late) == ["timeout@50"])
        let deadline = ReplaySchedule(recorded: entry, pieces: 3, idleTimeout: 0.15, deadline: 0.3)
        #expect(steps(deadline) == ["head@60", "piece(0)@100", "piece(1)@200", "timeout@300"])
        // Piece times that do not fit the pieces (another count) are not used.
        let mismatched = ReplaySchedule(recorded: entry, pieces: 2, idleTimeout: nil, deadline: nil)
        #expect(steps(mismatched) == steps(spread))
        #expect(
            steps(.immediate(pieces: 2)) == ["head@0", "piece(0)@0", "piece(1)@0", "end@0"])
    }

    @Test("cancelled between pieces, a timed replay hands over nothing more and abandons the sink")
    func cancelBetweenPieces() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let sink = TimedSink()
        let promise = try feedCassette(folder).send(request(sink: sink))
        sink.onFirstPiece = { promise.cancel() }
        let result = await promise.result
        guard case .failure(let error) = result, error is CancellationError else {
            Issue.record("expected the replay to be cancelled, got \(result)")
            return
        }
        // The abandonment is the replay's next step on its queue: wait for it, not for time.
        while !sink.abandoned { await Task.yield() }
        #expect(sink.pieces == ["aaa"])
        #expect(!sink.ended)
    }

    @Test("a replayed response carries the recorded timings as RequestMetrics")
    func metricsFromTimings() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let response = try await feedCassette(folder).send(request(sink: TimedSink())).value
        let metrics = try #require(response.metrics)
        // dns 4, connect 16 of which TLS 10, send 0, wait 40, receive 340 (ms).
        #expect(abs(metrics.domainLookup! - 0.004) < 1e-9)
        #expect(abs(metrics.connect! - 0.006) < 1e-9)
        #expect(abs(metrics.secureConnection! - 0.010) < 1e-9)
        #expect(abs(metrics.firstByte - 0.060) < 1e-9)
        #expect(abs(metrics.total - 0.400) < 1e-9)
        #expect(metrics.bytesReceived == 9)
        #expect(metrics.httpVersion == "HTTP/1.1")
    }

    @Test("metrics recorded live read back the same from the replay, on the suite's transport")
    func metricsRoundTrip() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/item") { _ in .json(#"{"name":"a","count":1}"#) }
        let request = TransportRequest(urlRequest: URLRequest(url: server.url("/item")))
        let live = try await Cassette(file: folder.file(), transport: liveTransport()).send(request).value
        let recorded = try #require(live.metrics)
        let replayed = try #require(
            try await Cassette(file: folder.file(), mode: .none).send(request).value.metrics)
        func same(_ a: TimeInterval?, _ b: TimeInterval?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) < 1e-6
            default: false
            }
        }
        #expect(same(replayed.domainLookup, recorded.domainLookup))
        #expect(same(replayed.connect, recorded.connect))
        #expect(same(replayed.secureConnection, recorded.secureConnection))
        #expect(same(replayed.firstByte, recorded.firstByte))
        #expect(same(replayed.total, recorded.total))
        // A transport that does not say (URLSession on Linux) is recorded as HTTP/1.1.
        #expect(replayed.httpVersion == recorded.httpVersion ?? "HTTP/1.1")
    }

    @Test("a live stream's pieces are recorded with the times they arrived")
    func chunkTimesRecorded() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let gate = DispatchSemaphore(value: 0)
        server.route("GET", "/feed") { _ in
            .streaming(headers: [.init("Content-Type", "text/event-stream")]) { body in
                for index in 0..<3 {
                    body.write("data: \(index)\n\n")
                    // The client acknowledges each piece, so each arrives alone and after it.
                    _ = gate.wait(timeout: .now() + 10)
                }
            }
        }
        let api = RecordedAPI(
            baseURL: server.url("").absoluteString,
            transport: try Cassette(file: folder.file(), transport: liveTransport()))
        for try await _ in api.stream(route: api.get(endpoint: "/feed")) { gate.signal() }
        let entry = try #require(try Cassette(file: folder.file(), mode: .none).entries.first)
        let times = try #require(entry.response.content.chunkTimes)
        #expect(entry.response.content.chunks == [9, 9, 9])
        // Each piece was sent only after the one before it was read, so each came later.
        #expect(times.count == 3)
        #expect(times.first! >= 0)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }
}

/// A download sink that notes what came and when, for the timing tests.
private final class TimedSink: DownloadSink, @unchecked Sendable {
    // @unchecked: a replay calls it one step at a time; `lock` guards the reads that follow.
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var state:
        (began: Duration?, pieces: [String], arrivals: [Duration], ended: Bool, abandoned: Bool) =
            (nil, [], [], false, false)

    /// Called once, after the first piece was written.
    var onFirstPiece: (@Sendable () -> Void)? {
        get { lock.withLock { firstPiece } }
        set { lock.withLock { firstPiece = newValue } }
    }
    private var firstPiece: (@Sendable () -> Void)?

    var startOffset: Int64 { 0 }
    var maximumBytes: Int64? { nil }
    var began: Duration? { lock.withLock { state.began } }
    var pieces: [String] { lock.withLock { state.pieces } }
    var arrivals: [Duration] { lock.withLock { state.arrivals } }
    var ended: Bool { lock.withLock { state.ended } }
    var abandoned: Bool { lock.withLock { state.abandoned } }

    func begin(_ response: HTTPURLResponse) throws -> Bool {
        lock.withLock { state.began = ContinuousClock.now - start }
        return true
    }

    func write(_ data: Data) throws {
        let first = lock.withLock {
            state.pieces.append(String(decoding: data, as: UTF8.self))
            state.arrivals.append(ContinuousClock.now - start)
            return state.pieces.count == 1
        }
        if first { onFirstPiece?() }
    }

    func end() throws { lock.withLock { state.ended = true } }
    func abandon() { lock.withLock { state.abandoned = true } }
}
