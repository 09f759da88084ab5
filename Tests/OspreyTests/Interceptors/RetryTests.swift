import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Retry policy in the pipeline: attempts, methods, deadline, cancellation")
struct RetryTests {
    private func api(_ server: LoopbackServer, policy: any RetryPolicy) -> (TestAPI, EventRecorder) {
        let api = TestAPI(server)
        let recorder = EventRecorder()
        api.configuration.retryPolicy = policy
        api.configuration.monitors = [recorder]
        return (api, recorder)
    }

    @Test("503, 503, then 200: three attempts and the value")
    func retriesUntilSuccess() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/flaky", handler: sequence([503, 503, 200]))
        let (api, recorder) = api(server, policy: StandardRetryPolicy.immediate())
        let value: Identified = try await api.request(route: api.get(endpoint: "/flaky")).value
        #expect(value == Identified(id: 1))
        #expect(server.requests.count == 3)
        #expect(
            recorder.kinds == ["started", "retrying", "started", "retrying", "started", "succeeded"])
        #expect(recorder.events.map(\.attempt) == [1, 1, 2, 2, 3, 3])
    }

    @Test("a persistent 503 stops after the last attempt, with its status and body")
    func givesUp() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/down", handler: sequence([503], body: #"{"down": true}"#))
        let (api, recorder) = api(server, policy: StandardRetryPolicy.immediate(attempts: 3))
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/down"))
        let error = try #require(await promise.apiError)
        #expect(error.statusCode == 503)
        #expect(error.data == Data(#"{"down": true}"#.utf8))
        #expect(server.requests.count == 3)
        #expect(recorder.kinds.last == "failed")
    }

    @Test("no retry for a 404, nor for a POST without an Idempotency-Key")
    func notRetried() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/missing", handler: sequence([404]))
        server.route("POST", "/charge", handler: sequence([500]))
        let (api, _) = api(server, policy: StandardRetryPolicy.immediate())
        let missing: Promise<Identified> = api.request(route: api.get(endpoint: "/missing"))
        #expect(await missing.apiError?.statusCode == 404)
        let charge: Promise<Identified> = api.request(
            route: api.post(endpoint: "/charge"), parameters: JSONParameters(["amount": 5]))
        #expect(await charge.apiError?.statusCode == 500)
        #expect(server.requests.count == 2)
    }

    @Test("a POST with an Idempotency-Key is retried, with the same body every time")
    func idempotentPostReplaysBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/charge", handler: sequence([500, 502, 200]))
        let (api, _) = api(server, policy: StandardRetryPolicy.immediate())
        let charged: Identified = try await api.request(
            route: api.post(endpoint: "/charge"),
            parameters: JSONParameters(["amount": 5], headers: ["Idempotency-Key": "k-1"])
        ).value
        #expect(charged == Identified(id: 1))
        let bodies = server.requests.map(\.body)
        #expect(bodies.count == 3)
        #expect(Set(bodies).count == 1)
        #expect(bodies.first == Data(#"{"amount":5}"#.utf8))
    }

    @Test("a multipart file body is uploaded again on retry and removed after the last attempt")
    func fileBodyReplayed() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload", handler: sequence([503, 201]))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-retry-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.txt")
        try Data(repeating: 0x41, count: 100_000).write(to: file)
        let parameters = MultipartParameters(
            parts: [Part(name: "file", fileURL: file)], headers: ["Idempotency-Key": "upload-1"])
        let temporary = folder.appendingPathComponent("tmp")
        parameters.temporaryDirectory = temporary
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let (api, _) = api(server, policy: StandardRetryPolicy.immediate())
        let sent: Promise<Void> = api.request(route: api.post(endpoint: "/upload"), parameters: parameters)
        try await sent.value
        #expect(server.requests.count == 2)
        #expect(server.requests[0].body == server.requests[1].body)
        #expect(server.requests[0].body.count > 100_000)
        // Removed just after the promise settled, on the request queue.
        await withCheckedContinuation { done in
            api.requestQueueForTesting.async(flags: .barrier) { done.resume() }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test("the policy is asked after a body that cannot be parsed; the standard policy declines it")
    func parsingFailures() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/garbled") { _ in .json("{not json") }
        let asked = Locked<[String]>([])
        let (api, _) = api(server, policy: AskingPolicy(asked: asked))
        let garbled: Promise<Identified> = api.request(route: api.get(endpoint: "/garbled"))
        let error = await garbled.apiError
        guard case .parsingFailed = error else {
            Issue.record("expected parsingFailed, got \(String(describing: error))")
            return
        }
        #expect(asked.withLock { $0 } == ["parsingFailed"])
        #expect(server.requests.count == 1)
    }

    @Test("a policy that asks to wait for ever (infinity, NaN) gives up instead of hanging")
    func endlessWait() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/busy") { _ in .text("busy", status: 503) }
        for delay in [TimeInterval.infinity, .nan] {
            let (api, _) = api(server, policy: FixedDelayPolicy(delay: delay))
            let busy: Promise<Data> = api.request(route: api.get(endpoint: "/busy"))
            #expect(await busy.apiError?.statusCode == 503)
        }
        #expect(server.requests.count == 2)
    }

    @Test("a refused connection is retried per the policy, then fails as a transport error")
    func connectionRefused() async throws {
        let server = try LoopbackServer()
        let (api, recorder) = api(server, policy: StandardRetryPolicy.immediate(attempts: 3))
        server.stop()
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/anything"))
        guard case .transport(let underlying, _) = try #require(await promise.apiError) else {
            Issue.record("expected a transport error")
            return
        }
        #expect((underlying as? URLError)?.code == .cannotConnectToHost)
        #expect(recorder.kinds.filter { $0 == "started" }.count == 3)
    }

    @Test("an idle timeout is retried")
    func timeoutRetried() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        // Never answered in time, however slowly the machine runs: only timeouts end the attempts.
        let slow = LoopbackServer.Response.json(#"{"id": 1}"#).delayingHead(by: 3600)
        server.route("GET", "/slow") { _ in slow }
        let (api, recorder) = api(server, policy: StandardRetryPolicy.immediate(attempts: 2))
        api.configuration.timeout = 0.2
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/slow"))
        guard case .timedOut = try #require(await promise.apiError) else {
            Issue.record("expected timedOut")
            return
        }
        // Counted in the attempts, not at the server: on a loaded machine an attempt can time
        // out before its request has reached the server (a CI run saw one of two arrive).
        #expect(
            try await recorder.firstEvent { if case .failed = $0.kind { true } else { false } }.value.attempt
                == 2)
        #expect(recorder.kinds == ["started", "retrying", "started", "failed"])
    }

    @Test("no retry that could not start before the total deadline")
    func deadlineCoversRetries() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/down", handler: sequence([503]))
        var policy = StandardRetryPolicy(maximumAttempts: 5, baseDelay: 100, maximumDelay: 100)
        policy.random = { 1 }
        let (api, recorder) = api(server, policy: policy)
        api.configuration.deadline = 20
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/down"))
        #expect(await promise.apiError?.statusCode == 503)
        #expect(server.requests.count == 1)
        #expect(recorder.kinds == ["started", "failed"])
    }

    @Test("cancelling during the wait before a retry cancels, and no other attempt is made")
    func cancelDuringBackoff() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/down", handler: sequence([503]))
        var policy = StandardRetryPolicy(maximumAttempts: 5, baseDelay: 3600, maximumDelay: 3600)
        policy.random = { 1 }
        let (api, recorder) = api(server, policy: policy)
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/down"))
        let retrying = try await recorder.firstEvent { $0.kind.name == "retrying" }.value
        #expect(retrying.attempt == 1)
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.value }
        _ = try await recorder.firstEvent { $0.kind.name == "cancelled" }.value
        #expect(server.requests.count == 1)
        #expect(recorder.kinds == ["started", "retrying", "cancelled"])
    }
}

/// Answers each request after a random few hundred microseconds on a global queue: 503 for
/// the first two attempts of a path, then `{"id": n}`. No URLSession, so that the races under
/// test are Osprey's own (FoundationNetworking 6.3 can crash when a task is cancelled at the
/// instant it completes, a platform bug the Transports article documents).
final class FlakyStubTransport: HTTPTransport {
    private let attempts = Locked<[String: Int]>([:])

    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        let url = request.urlRequest.url!
        let id = url.lastPathComponent
        let attempt = attempts.withLock { attempts -> Int in
            attempts[id, default: 0] += 1
            return attempts[id, default: 0]
        }
        let status = attempt < 3 ? 503 : 200
        let body = attempt < 3 ? Data("{}".utf8) : Data(#"{"id": \#(id)}"#.utf8)
        let (promise, resolver) = Promise<TransportResponse>.pending()
        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...500))) {
            let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
            resolver.fulfill(TransportResponse(response: response, data: body, request: request.urlRequest))
        }
        return promise
    }
}

@Suite("RequestRun under races: retries, cancellations and completions settle once")
struct RequestRunStressTests {
    final class StubAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL = "http://stub.invalid"
    }

    @Test("2,000 requests through retries, half cancelled at random moments")
    func racingCancellations() async throws {
        let api = StubAPI(responseParser: JSONParser(), transport: FlakyStubTransport())
        api.configuration.retryPolicy = StandardRetryPolicy.immediate(attempts: 3)
        let recorder = EventRecorder()
        api.configuration.monitors = [recorder]
        let settlements = Locked(0)
        let finallies = Locked<[Promise<Identified>]>([])
        let count = 2_000
        let promises = (0..<count).map { index -> Promise<Identified> in
            let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/items/\(index)"))
            let finally = promise.finally(in: .global()) { settlements.withLock { $0 += 1 } }
            finallies.withLock { $0.append(finally) }
            if index.isMultiple(of: 2) {
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...1_500)))
                {
                    promise.cancel()
                }
            }
            return promise
        }
        var cancelled = 0
        for (index, promise) in promises.enumerated() {
            switch await promise.result {
            case .success(let value): #expect(value == Identified(id: index))
            case .failure(let error) where error is CancellationError:
                cancelled += 1
                #expect(index.isMultiple(of: 2))
            case .failure(let error):
                Issue.record("request \(index) failed: \(error)")
            }
        }
        // Liveness: every request that was sent reports its end (cancelled ones a little after
        // their promise settled).
        try await recorder.waitUntil { events in
            let tally = Tally(events)
            return tally.starts.keys.allSatisfy { tally.ends[$0] != nil }
        }.timeout(120).value
        // Safety: never two ends for one request, never more attempts than the policy allows.
        let tally = Tally(recorder.events)
        #expect(tally.ends.values.allSatisfy { $0 == 1 })
        #expect(tally.starts.values.allSatisfy { $0 <= 3 })
        #expect(cancelled > 0)
        // Each promise settled once: one `finally` each.
        for finally in finallies.withLock({ $0 }) { _ = await finally.result }
        #expect(settlements.withLock { $0 } == count)
    }
}

/// Attempts started and ends reported, per request path.
private struct Tally {
    var starts: [String: Int] = [:]
    var ends: [String: Int] = [:]

    init(_ events: [APIEvent]) {
        for event in events {
            let path = event.request.url?.path ?? ""
            switch event.kind {
            case .started: starts[path, default: 0] += 1
            case .succeeded, .failed, .cancelled: ends[path, default: 0] += 1
            case .retrying, .progress: break
            }
        }
    }
}

/// Records which failures it was asked about; then answers as the standard policy does.
private struct AskingPolicy: RetryPolicy {
    let asked: Locked<[String]>

    func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval? {
        let name = if case .parsingFailed = error { "parsingFailed" } else { "\(error)" }
        asked.withLock { $0.append(name) }
        return StandardRetryPolicy.immediate().retryDelay(after: error, request: request, attempt: attempt)
    }
}

/// Always asks for the same delay.
private struct FixedDelayPolicy: RetryPolicy {
    let delay: TimeInterval

    func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval? { delay }
}
