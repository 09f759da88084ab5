import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Request adapters: run in order on every attempt, fail cleanly")
struct AdapterTests {
    @Test("synchronous and asynchronous adapters change the request, in order")
    func adaptersInOrder() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/me") { _ in .json(#"{"id": 7}"#) }
        let api = TestAPI(server)
        api.configuration.adapters = [
            AdaptRequest { $0.setValue("one", forHTTPHeaderField: "X-Trace") },
            AdaptRequest(async: { request in
                var request = request
                let trace = request.value(forHTTPHeaderField: "X-Trace") ?? ""
                request.setValue(trace + ",two", forHTTPHeaderField: "X-Trace")
                request.setValue("Bearer fetched", forHTTPHeaderField: "Authorization")
                return request
            }),
        ]
        let me: Identified = try await api.request(route: api.get(endpoint: "/me")).value
        #expect(me == Identified(id: 7))
        let received = try #require(server.requests.first)
        #expect(received.value(forHeader: "X-Trace") == "one,two")
        #expect(received.value(forHeader: "Authorization") == "Bearer fetched")
    }

    @Test("a failing adapter rejects with adaptationFailed and sends nothing")
    func failingAdapter() async throws {
        struct NoToken: Error {}
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        api.configuration.adapters = [AdaptRequest(async: { _ in throw NoToken() })]
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/me"))
        guard case .adaptationFailed(let underlying) = try #require(await promise.apiError) else {
            Issue.record("expected adaptationFailed")
            return
        }
        #expect(underlying is NoToken)
        #expect(server.acceptedConnectionCount == 0)
    }

    @Test("a header an adapter adds is validated: an invalid name is refused before sending")
    func adaptedHeadersValidated() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        api.configuration.adapters = [
            // (Foundation silently drops values with CR, LF or NUL; names it passes through.)
            AdaptRequest { $0.setValue("1", forHTTPHeaderField: "X-Note\r\nX-Injected") }
        ]
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/me"))
        let error = try #require(await promise.apiError)
        guard case .invalidRequest = error else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(server.acceptedConnectionCount == 0)
    }

    /// Retries a 401 once, after refreshing the token the adapter reads.
    struct RefreshOn401: RetryPolicy {
        let tokens: Locked<String>
        func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval? {
            guard error.statusCode == 401, attempt == 1 else { return nil }
            tokens.withLock { $0 = "fresh" }
            return 0
        }
    }

    @Test("a retry runs the adapters again: a refreshed token is sent after a 401")
    func tokenRefresh() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/me") { request in
            request.value(forHeader: "Authorization") == "Bearer fresh"
                ? .json(#"{"id": 7}"#) : .json(#"{"code": 1, "message": "expired"}"#, status: 401)
        }
        let tokens = Locked("stale")
        let api = TestAPI(server)
        api.configuration.adapters = [
            AdaptRequest { request in
                request.setValue("Bearer \(tokens.withLock { $0 })", forHTTPHeaderField: "Authorization")
            }
        ]
        api.configuration.retryPolicy = RefreshOn401(tokens: tokens)
        let me: Identified = try await api.request(route: api.get(endpoint: "/me")).value
        #expect(me == Identified(id: 7))
        #expect(
            server.requests.map { $0.value(forHeader: "Authorization") } == ["Bearer stale", "Bearer fresh"])
    }

    @Test("cancelling while an adapter works cancels, and nothing is sent")
    func cancelWhileAdapting() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let (gate, opener) = Promise<Void>.pending()
        let (adapting, started) = Promise<Void>.pending()
        api.configuration.adapters = [
            AdaptRequest(promise: { request in
                started.fulfill(())
                return gate.then { request }
            })
        ]
        let recorder = EventRecorder()
        api.configuration.monitors = [recorder]
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/me"))
        try await adapting.value  // the adapter is at work
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.value }
        opener.fulfill(())
        // Whatever the adapter's answer set off on the request queue has run.
        await api.drainRequestQueue()
        await api.drainRequestQueue()
        #expect(server.acceptedConnectionCount == 0)
        #expect(!recorder.kinds.contains("started"))
    }

    @Test("cancelling a request leaves a shared adapter promise to the requests still waiting")
    func sharedAdapterPromise() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/me") { _ in .json(#"{"id": 7}"#) }
        let (token, issuer) = Promise<String>.pending()
        let (asked, asking) = Promise<Void>.pending()
        let api = TestAPI(server)
        // One token fetch, cached and shared by every request.
        api.configuration.adapters = [
            AdaptRequest(promise: { request in
                asking.fulfill(())
                return token.then { token in
                    var request = request
                    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                    return request
                }
            })
        ]
        let first: Promise<Identified> = api.request(route: api.get(endpoint: "/me"))
        try await asked.value
        first.cancel()
        _ = await first.result
        let second: Promise<Identified> = api.request(route: api.get(endpoint: "/me"))
        // Its adapter is waiting too before the refresh ends: the first barrier passes the
        // request's build, the second the adapter step that building queued.
        await api.drainRequestQueue()
        await api.drainRequestQueue()
        issuer.fulfill("shared")
        #expect(try await second.value == Identified(id: 7))
        #expect(!token.isCancelled)
        #expect(server.requests.map { $0.value(forHeader: "Authorization") } == ["Bearer shared"])
    }

    @Test("the deadline covers an adapter that never answers: timedOut, nothing sent, no body file left")
    func deadlineCoversAdapters() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 201) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("part.bin")
        try Data(count: 1000).write(to: file)
        let parameters = MultipartParameters(parts: [Part(name: "f", fileURL: file)])
        parameters.temporaryDirectory = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)

        let (never, resolver) = Promise<URLRequest>.pending()
        let api = TestAPI(server)
        api.configuration.deadline = 0.5
        api.configuration.adapters = [AdaptRequest(promise: { _ in never })]
        let upload: Promise<Void> = api.request(route: api.post(endpoint: "/upload"), parameters: parameters)
        // Bounded: without the run's own deadline the request would wait for ever.
        guard case .timedOut = try #require(await upload.timeout(30).apiError) else {
            Issue.record("expected timedOut")
            return
        }
        await api.drainRequestQueue()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path)
                .isEmpty)
        #expect(server.requests.isEmpty)
        withExtendedLifetime(resolver) {}
    }
}
