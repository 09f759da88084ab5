#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// A transfer started by its caller while its loop waits with nothing to do: libcurl sends the
    /// request from the caller's thread, under the loop's lock, and the loop reads the answer. A
    /// transfer that ends within that call (a socket that is not there) is completed by the loop.
    /// A lost completion would hang, hence the time limit: ten minutes, since every suite runs
    /// side by side on two cores (under ThreadSanitizer a test that takes a second alone took over
    /// a minute there).
    @Suite(
        "Transport: CurlTransport starts a transfer on an idle loop from the caller", .timeLimit(.minutes(10))
    )
    struct CurlDirectStartTests {
        @Test("requests made one after another go out from the caller's thread, and each gets its own answer")
        func sequentialRequestsStartDirectly() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/item/:id") { request in .json("[\(request.pathParameters["id"]!)]") }
            let transport = try #require(CurlTransport(loops: 1))
            let api = TestAPI(server, transport: transport)
            for id in 0..<20 {
                let item: [Int] = try await api.request(route: api.get(endpoint: "/item/\(id)")).value
                #expect(item == [id])
            }
            // Between two requests the loop waits with nothing to do: at least some of them (all,
            // on a quiet machine) were started by their caller.
            #expect(transport.directStarts.started >= 1)
            #expect(server.requests.map(\.connectionID) == Array(repeating: 1, count: 20))
        }

        @Test("a transfer that ends while its caller starts it is completed by the loop")
        func endedAtOnceIsCompleted() async throws {
            let transport = try #require(
                CurlTransport(
                    unixSockets: ["docker": "/tmp/osprey-\(UUID().uuidString.prefix(8)).sock"], loops: 1))
            let server = try LoopbackServer()
            defer { server.stop() }
            let api = TestAPI(server, host: "docker", transport: transport)
            // Connecting to a socket that is not there fails inside libcurl's first call.
            for _ in 0..<5 {
                let error = await (api.request(route: api.get(endpoint: "/_ping")) as Promise<String>)
                    .apiError
                guard case .transport? = error else {
                    Issue.record("expected a transport error, got \(String(describing: error))")
                    return
                }
            }
            #expect(transport.directStarts.endedAtOnce >= 1)
        }

        @Test(
            "stress: 8 callers × 25 requests on one loop, started directly or through the inbox, all answered"
        )
        func callersRaceTheLoop() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/item/:id") { request in .json("[\(request.pathParameters["id"]!)]") }
            let transport = try #require(CurlTransport(loops: 1))
            let api = TestAPI(server, transport: transport)
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for caller in 0..<8 {
                    group.addTask {
                        var correct = 0
                        for index in 0..<25 {
                            let id = caller * 100 + index
                            let item: [Int] = try await api.request(route: api.get(endpoint: "/item/\(id)"))
                                .value
                            if item == [id] { correct += 1 }
                        }
                        return correct
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(answered == 200)
        }
    }
#endif
