#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// CurlTransport's loop group: transfers spread over the loops, the per-host limit shared
    /// between them, and a loop that stops failing its own transfers only.
    @Suite("Transport: CurlTransport's group of loops")
    struct CurlLoopGroupTests {
        /// A server whose `/slow` answers only after `delay`, so that requests stay in flight.
        private static func slowServer(delay: TimeInterval) throws -> LoopbackServer {
            let server = try LoopbackServer()
            server.route("/slow") { request in
                LoopbackServer.Response.text(request.path).delayingHead(by: delay)
            }
            server.route("/quick") { request in .text(request.path) }
            return server
        }

        /// A server whose `/held` answers only once the test leaves `gate` (or after 30 s), so
        /// that requests stay in flight however slowly a loaded machine sends them.
        private static func heldServer(until gate: DispatchGroup) throws -> LoopbackServer {
            let server = try LoopbackServer()
            server.route("/held") { request in
                _ = gate.wait(timeout: .now() + 30)
                return .text(request.path)
            }
            server.route("/quick") { request in .text(request.path) }
            return server
        }

        /// A gate that holds `/held` answers until `leave()` is called once.
        private static func closedGate() -> DispatchGroup {
            let gate = DispatchGroup()
            gate.enter()
            return gate
        }

        private static func get(_ transport: CurlTransport, _ url: URL) -> Promise<TransportResponse> {
            transport.send(TransportRequest(urlRequest: URLRequest(url: url)))
        }

        @Test("requests in flight together go to the least busy loop, and each gets its own answer")
        func spreadOverLoops() async throws {
            let gate = Self.closedGate()
            let server = try Self.heldServer(until: gate)
            defer { server.stop() }
            let transport = try #require(CurlTransport(loops: 3))
            let promises = (0..<9).map { index in Self.get(transport, server.url("/held?n=\(index)")) }
            // Counted as they are sent; none can end before the gate opens.
            #expect(transport.loopLoads == [3, 3, 3])
            // All nine reach the server before any is answered: none can reuse another's connection.
            #expect(await server.waitForRequests(count: 9, timeout: 30))
            gate.leave()
            for (index, promise) in promises.enumerated() {
                let response = try await promise.value
                #expect(response.statusCode == 200)
                #expect(String(decoding: response.data, as: UTF8.self) == "/held")
                #expect(response.request.url?.query == "n=\(index)")
            }
            // Nine requests in flight at once on nine connections: three per loop.
            #expect(Set(server.requests.map(\.connectionID)).count == 9)
        }

        @Test("one request after another stays on one loop and one connection")
        func sequentialOnOneConnection() async throws {
            let server = try Self.slowServer(delay: 0)
            defer { server.stop() }
            let transport = try #require(CurlTransport(loops: 4))
            for index in 0..<10 {
                let response = try await Self.get(transport, server.url("/quick?n=\(index)")).value
                #expect(String(decoding: response.data, as: UTF8.self) == "/quick")
            }
            #expect(Set(server.requests.map(\.connectionID)).count == 1)
        }

        @Test("the loops share the per-host limit: together they open no more connections than it allows")
        func sharedPerHostLimit() async throws {
            let server = try Self.slowServer(delay: 0.3)
            defer { server.stop() }
            // Three connections between two loops (two and one), twelve requests.
            let transport = try #require(CurlTransport(maximumConnectionsPerHost: 3, loops: 2))
            #expect(transport.loopLoads.count == 2)
            let promises = (0..<12).map { index in Self.get(transport, server.url("/slow?n=\(index)")) }
            for promise in promises { #expect(try await promise.value.statusCode == 200) }
            let connections = Set(server.requests.map(\.connectionID)).count
            #expect(connections <= 3, "\(connections) connections")
            // Never more loops than connections allowed to a host.
            #expect(try #require(CurlTransport(maximumConnectionsPerHost: 1, loops: 4)).loopLoads.count == 1)
        }

        @Test("a loop that stops fails its own transfers with an error naming it; the others go on")
        func stoppedLoopFailsOnlyItsTransfers() async throws {
            let gate = Self.closedGate()
            let server = try Self.heldServer(until: gate)
            defer { server.stop() }
            let transport = try #require(CurlTransport(loops: 2))
            // Least busy first, the first of equals: even ones on loop 0, odd ones on loop 1.
            let promises = (0..<4).map { index in Self.get(transport, server.url("/held?n=\(index)")) }
            #expect(transport.loopLoads == [2, 2])
            await transport.stopLoop(0)
            // The odd ones are answered only now, after loop 0 stopped with the even ones.
            gate.leave()
            for (index, promise) in promises.enumerated() {
                let result = await promise.result
                if index.isMultiple(of: 2) {
                    guard case .failure(APIError.transport(let underlying, _)) = result else {
                        Issue.record("request \(index) on the stopped loop: \(result)")
                        continue
                    }
                    let stopped = try #require(underlying as? CurlLoopStopped)
                    #expect(stopped.description.contains("osprey.curl.0"))
                    #expect(stopped.description.contains("stopped by a test"))
                } else {
                    #expect(try result.get().statusCode == 200, "request \(index)")
                }
            }
            // New requests go to the loop still running.
            let after = try await Self.get(transport, server.url("/quick")).value
            #expect(after.statusCode == 200)
            #expect(transport.loopLoads.count == 2)
        }

        @Test("when every loop has stopped, a request fails at once with an error that says so")
        func everyLoopStopped() async throws {
            let server = try Self.slowServer(delay: 0)
            defer { server.stop() }
            let transport = try #require(CurlTransport(loops: 2))
            await transport.stopLoop(0)
            await transport.stopLoop(1)
            let result = await Self.get(transport, server.url("/quick")).result
            guard case .failure(APIError.transport(let underlying as CurlLoopStopped, _)) = result else {
                Issue.record("expected CurlLoopStopped, got \(result)")
                return
            }
            #expect(underlying.description.contains("every loop"))
            #expect(server.requests.isEmpty)
        }
    }
#endif
