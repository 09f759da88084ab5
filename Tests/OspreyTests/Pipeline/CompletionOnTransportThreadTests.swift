#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// `completesOnTransportThread`: validation, parsing and monitors run on the curl loop that
    /// completed the transfer, and the pipeline's rules hold there as on the default path.
    @Suite("Pipeline: completing on the transport's thread (opt-in)")
    struct CompletionOnTransportThreadTests {
        /// Notes the thread each body is parsed on.
        final class ThreadNotingParser: JSONParser, @unchecked Sendable {
            /// The calling thread's name as the system knows it (what `perf` and debuggers show).
            static func systemThreadName() -> String {
                let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                return comm?.trimmingCharacters(in: .newlines) ?? ""
            }

            // @unchecked: `threads` is locked.
            let threads = Locked<[String]>([])
            /// Makes every parse throw.
            var fails = false

            override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
                threads.withLock { $0.append(Self.systemThreadName()) }
                if fails { throw CocoaError(.coderReadCorrupt) }
                return try super.getInstance(from: data, response: response)
            }
        }

        private static func api(
            _ server: LoopbackServer, parser: ThreadNotingParser = ThreadNotingParser(), onLoop: Bool = true
        ) throws -> TestAPI {
            let transport = try #require(CurlTransport())
            let api = TestAPI(server, parser: parser, transport: transport)
            api.configuration.completesOnTransportThread = onLoop
            return api
        }

        /// Sends `count` requests for `/item` one after another, each answered only once the
        /// pipeline has handed it to the transport and listens for its outcome: the transfer then
        /// settles on the loop with the pipeline waiting. (A promise that settled before the
        /// pipeline looked is finished where it looks, the request queue: a timed delay does not
        /// rule that out on a loaded machine, so the answer is held on a gate.)
        private static func requestHeld(
            _ count: Int, from server: LoopbackServer, parser: ThreadNotingParser, onLoop: Bool
        ) async throws -> [Result<Identified, any Error>] {
            let gate = DispatchSemaphore(value: 0)
            server.route("/item") { _ in
                gate.wait()
                return .json(#"{"id": 7}"#)
            }
            let api = try Self.api(server, parser: parser, onLoop: onLoop)
            var results: [Result<Identified, any Error>] = []
            for number in 1...count {
                let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/item"))
                #expect(await server.waitForRequests(count: number))
                // The request queue's work item that sent it registered on the transport's promise
                // before it ended: a barrier runs after it.
                await withCheckedContinuation { continuation in
                    api.requestQueueForTesting.async(flags: .barrier) { continuation.resume() }
                }
                gate.signal()
                results.append(await promise.result)
            }
            return results
        }

        @Test(
            "the body is parsed on the loop that completed it; by default never on a loop",
            arguments: [true, false])
        func parsedOnTheLoop(onLoop: Bool) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let parser = ThreadNotingParser()
            for result in try await Self.requestHeld(3, from: server, parser: parser, onLoop: onLoop) {
                #expect(try result.get() == Identified(id: 7))
            }
            let threads = parser.threads.withLock { $0 }
            #expect(threads.count == 3)
            #expect(threads.allSatisfy { $0.hasPrefix("osprey.curl") } == onLoop, "\(threads)")
            #expect(threads.allSatisfy { !$0.hasPrefix("osprey.curl") } == !onLoop, "\(threads)")
        }

        @Test("handlers still run on their queue, never on the loop")
        func handlersOnTheirQueue() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/item") { _ in .json(#"{"id": 7}"#) }
            let api = try Self.api(server)
            let queue = DispatchQueue(label: "test.handler")
            let key = DispatchSpecificKey<Int>()
            queue.setSpecific(key: key, value: 1)
            let seen = try await withCheckedThrowingContinuation { continuation in
                let item: Promise<Identified> = api.request(route: api.get(endpoint: "/item"))
                item.onSuccess(in: queue) { _ in
                    continuation.resume(
                        returning: (
                            DispatchQueue.getSpecific(key: key), ThreadNotingParser.systemThreadName()
                        ))
                }.onError { continuation.resume(throwing: $0) }
            }
            #expect(seen.0 == 1)
            #expect(!seen.1.hasPrefix("osprey.curl"))
        }

        @Test("a parser that throws fails the request with the parsing error, thrown on the loop")
        func parserThrows() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let parser = ThreadNotingParser()
            parser.fails = true
            let result = try #require(
                try await Self.requestHeld(1, from: server, parser: parser, onLoop: true).first)
            guard case .failure(APIError.parsingFailed) = result else {
                Issue.record("expected parsingFailed, got \(result)")
                return
            }
            let threads = parser.threads.withLock { $0 }
            #expect(threads.count == 1)
            #expect(threads.allSatisfy { $0.hasPrefix("osprey.curl") }, "\(threads)")
        }

        @Test("a failing status is retried by the policy, and monitors hear every attempt in order")
        func retriedWithMonitors() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/flaky", handler: sequence([503, 503, 200]))
            let api = try Self.api(server)
            api.configuration.retryPolicy = StandardRetryPolicy.immediate(attempts: 3)
            let recorder = EventRecorder()
            api.configuration.monitors = [recorder]
            let item: Identified = try await api.request(route: api.get(endpoint: "/flaky")).value
            #expect(item == Identified(id: 1))
            #expect(server.requests.count == 3)
            try await recorder.waitUntil { $0.last?.kind.name == "succeeded" }.timeout(10).value
            #expect(
                recorder.kinds == ["started", "retrying", "started", "retrying", "started", "succeeded"])
        }

        @Test("a redirect is followed, and the answer is the target's")
        func redirect() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/from") { _ in .redirect(to: "/to") }
            server.route("/to") { _ in .json(#"{"id": 2}"#) }
            let api = try Self.api(server)
            let response: APIResponse<Identified> = try await api.request(route: api.get(endpoint: "/from"))
                .value
            #expect(response.value == Identified(id: 2))
            #expect(response.request.url?.path == "/to" || response.response.url?.path == "/to")
        }

        @Test("a request cancelled in flight ends cancelled, and the loop goes on with the next")
        func cancelled() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/held") { _ in .json(#"{"id": 3}"#).delayingHead(by: 3600) }
            server.route("/item") { _ in .json(#"{"id": 4}"#) }
            let api = try Self.api(server)
            let held: Promise<Identified> = api.request(route: api.get(endpoint: "/held"))
            #expect(await server.waitForRequests(count: 1))
            held.cancel()
            await #expect(throws: CancellationError.self) { try await held.value }
            let next: Identified = try await api.request(route: api.get(endpoint: "/item")).value
            #expect(next == Identified(id: 4))
        }

        @Test("a stream's body still reaches its reader piece by piece")
        func stream() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/feed") { _ in
                .streaming(headers: [.init("Content-Type", "text/plain")]) { body in
                    for line in ["one", "two", "three"] { body.write("\(line)\n") }
                }
            }
            let api = try Self.api(server)
            let stream = api.stream(route: api.get(endpoint: "/feed"))
            var lines: [String] = []
            for try await line in stream.lines { lines.append(line) }
            #expect(lines == ["one", "two", "three"])
            try await stream.completion.value
        }

        @Test("400 requests, 16 at a time, completed on the loops: every answer is its own")
        func underLoad() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/n/:n") { request in .json(#"{"id": \#(request.pathParameters["n"]!)}"#) }
            let api = try Self.api(server)
            for start in stride(from: 0, to: 400, by: 16) {
                let promises = (start..<start + 16).map { n -> Promise<Identified> in
                    api.request(route: api.get(endpoint: "/n/\(n)"))
                }
                let answers = try await Promise.all(promises).value
                #expect(answers.map(\.id) == Array(start..<start + 16))
            }
        }
    }
#endif
