#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// The libcurl transport through the whole pipeline, against the loopback server. (The whole
    /// suite runs on it too: it is the default on Linux.)
    @Suite("Transport: CurlTransport")
    struct CurlTransportTests {
        private func api(_ server: LoopbackServer, parser: any ResponseParser = JSONParser()) throws
            -> TestAPI
        {
            let transport = try #require(CurlTransport(), "libcurl: \(CurlLibrary.loadError ?? "?")")
            return TestAPI(server, parser: parser, transport: transport)
        }

        @Test("libcurl.so.4 loads at run time, with its version")
        func loads() {
            #expect(CurlLibrary.isAvailable)
            #expect(CurlLibrary.version?.hasPrefix("libcurl/") == true, "\(CurlLibrary.version ?? "nil")")
            #expect(CurlTransport.unavailableReason == nil)
            #expect(CurlTransport.libraryVersion == CurlLibrary.version)
        }

        @Test("an API given no transport uses CurlTransport on Linux")
        func isTheDefault() {
            let api = AbstractAPI(responseParser: JSONParser())
            #expect(api.transport is CurlTransport)
        }

        @Test("without libcurl the default is URLSessionTransport, and the reason is reported")
        func fallback() {
            let reports = Locked(0)
            let chosen = DefaultTransport.choose(curl: nil, report: { reports.withLock { $0 += 1 } })
            #expect(chosen is URLSessionTransport)
            #expect(reports.withLock { $0 } == 1)
            let curl = CurlTransport()
            #expect(curl != nil)
            #expect(
                DefaultTransport.choose(curl: curl, report: { reports.withLock { $0 += 1 } }) is CurlTransport
            )
            #expect(reports.withLock { $0 } == 1)
            #expect(
                DefaultTransport.fallbackMessage(reason: "libcurl.so.4 could not be loaded")
                    == "Osprey: using URLSessionTransport, libcurl is unavailable (libcurl.so.4 could not be loaded)\n"
            )
        }

        /// The `RepositoriesAPI` of the README's first example, which the Transports article uses.
        final class RepositoriesAPI: AbstractAPI, @unchecked Sendable {}

        @Test("the Transports article's choices: URLSession, or libcurl trusting a CA file too")
        func transportsArticleChoices() {
            let api = RepositoriesAPI(responseParser: JSONParser(), transport: URLSessionTransport())
            let company = CurlTransport(trustedCertificates: URL(fileURLWithPath: "/etc/company/ca.pem"))
            let companyAPI = RepositoriesAPI(
                responseParser: JSONParser(), transport: company ?? URLSessionTransport())
            #expect(api.transport is URLSessionTransport)
            #expect(companyAPI.transport is CurlTransport)
        }

        @Test("GET decodes JSON; the request carries the API's headers and no body")
        func get() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/items/:id") { request in .json(#"[\#(request.pathParameters["id"]!)]"#) }
            let api = try api(server)
            let items: [Int] = try await api.request(route: api.get(endpoint: "/items/7")).value
            #expect(items == [7])
            let sent = try #require(server.requests.first)
            #expect(sent.method == "GET")
            #expect(sent.value(forHeader: "Accept") == "application/json")
            #expect(sent.body.isEmpty)
        }

        @Test(
            "POST, PUT and PATCH send their bodies; DELETE sends none",
            arguments: ["POST", "PUT", "PATCH"])
        func bodies(method: String) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/echo") { .echo(of: $0) }
            let api = try api(server)
            let route = api.route(HTTPMethod(rawValue: method), endpoint: "/echo")
            let echo: LoopbackServer.Echo = try await api.request(
                route: route, parameters: JSONParameters(["name": "osprey"])
            ).value
            #expect(echo.method == method)
            #expect(String(decoding: echo.body, as: UTF8.self) == #"{"name":"osprey"}"#)
            #expect(echo.value(forHeader: "Content-Type") == "application/json")
            let deleted: LoopbackServer.Echo = try await api.request(route: api.delete(endpoint: "/echo"))
                .value
            #expect(deleted.method == "DELETE")
            #expect(deleted.body.isEmpty)
        }

        @Test("an error status arrives with its body, decoded by the parser's getError")
        func errorStatus() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/missing") { _ in .json(#"{"code": 404, "message": "no such thing"}"#, status: 404)
            }
            let api = try api(server, parser: MessageParser())
            let missing: Promise<[Int]> = api.request(route: api.get(endpoint: "/missing"))
            let error = await missing.apiError
            #expect(error?.statusCode == 404)
            #expect(
                error?.underlyingError as? ServerMessage == ServerMessage(code: 404, message: "no such thing")
            )
        }

        @Test("redirects are followed by Osprey's rules: credentials stay on their origin")
        func redirects() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/echo") { .echo(of: $0) }
            let other = server.baseURL(host: "localhost").absoluteString
            server.route("/away") { _ in .redirect(302, to: "\(other)/echo") }
            server.route("/near") { _ in .redirect(307, to: "/echo") }
            let api = try api(server)
            let secret = URLParameters(headers: ["Authorization": "Bearer secret", "X-Other": "kept"])
            let away: LoopbackServer.Echo = try await api.request(
                route: api.get(endpoint: "/away"), parameters: secret
            )
            .value
            #expect(away.value(forHeader: "Authorization") == nil)
            #expect(away.value(forHeader: "X-Other") == "kept")
            #expect(away.value(forHeader: "Host") == "localhost:\(server.port)")
            let near: LoopbackServer.Echo = try await api.request(
                route: api.get(endpoint: "/near"), parameters: secret
            )
            .value
            #expect(near.value(forHeader: "Authorization") == "Bearer secret")
        }

        @Test("the size limit stops a declared length at once, and a chunked body as it passes the limit")
        func sizeLimit() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let body = Data(repeating: 0x61, count: 64 * 1024)
            server.route("/declared") { _ in LoopbackServer.Response(body: body) }
            server.route("/chunked") { _ in LoopbackServer.Response(body: body).chunked() }
            let api = try api(server)
            api.configuration.maximumResponseBytes = 16 * 1024
            for path in ["/declared", "/chunked"] {
                let data: Promise<Data> = api.request(route: api.get(endpoint: path))
                guard case .responseTooLarge(let limit, _) = await data.apiError else {
                    Issue.record("\(path): expected responseTooLarge")
                    continue
                }
                #expect(limit == 16 * 1024)
            }
        }

        @Test("gzip bodies are decoded; a body cut short is a transport error")
        func decodingAndTruncation() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
            server.route("/gzip") { _ in LoopbackServer.Response(body: body).gzipped() }
            server.route("/short") { _ in LoopbackServer.Response(body: body).overstatingContentLength(by: 10)
            }
            let api = try api(server)
            let decoded: Data = try await api.request(route: api.get(endpoint: "/gzip")).value
            #expect(decoded == body)
            let short: Promise<Data> = api.request(route: api.get(endpoint: "/short"))
            guard case .transport = await short.apiError else {
                Issue.record("expected a transport error")
                return
            }
        }

        @Test("cancelling stops the transfer and the server sees the connection close")
        func cancel() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/slow") { _ in
                LoopbackServer.Response(body: Data(repeating: 0x61, count: 1 << 20)).pausingBody(
                    afterBytes: 1024, for: 3600)
            }
            let api = try api(server)
            let slow: Promise<Data> = api.request(route: api.get(endpoint: "/slow"))
            #expect(await server.waitForReceivedBytes(atLeast: 1))
            #expect(await server.waitForRequests(count: 1))
            slow.cancel()
            #expect(await slow.result.isCancellation)
            #expect(await server.waitUntilNoOpenConnections())
        }

        @Test("an idle timeout fails with timedOut while the server holds the response")
        func idleTimeout() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/late") { _ in .text("late").delayingHead(by: 3600) }
            let api = try api(server)
            api.configuration.timeout = 0.3
            let late: Promise<String> = api.request(route: api.get(endpoint: "/late"))
            guard case .timedOut = await late.apiError else {
                Issue.record("expected timedOut")
                return
            }
            #expect(await server.waitUntilNoOpenConnections())
        }

        @Test("a multipart file part is uploaded from disk")
        func fileUpload() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/upload") { request in .text("\(request.body.count)") }
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            let file = folder.file("part.bin")
            let content = patternedData(count: 3 << 20)
            try content.write(to: file)
            let api = try api(server)
            let count: String = try await api.request(
                route: api.post(endpoint: "/upload"),
                parameters: MultipartParameters(parts: [Part(name: "file", fileURL: file)])
            ).value
            #expect((Int(count) ?? 0) > content.count)
            let received = try #require(server.requests.first?.body)
            #expect(received.range(of: content) != nil)
        }

        @Test(
            "no more than maximumConnectionsPerHost connections to one host; other requests wait their turn")
        func connectionLimit() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/slow/:n") { request in
                .json("[\(request.pathParameters["n"]!)]").delayingHead(by: 0.05)
            }
            let transport = try #require(CurlTransport(maximumConnectionsPerHost: 3))
            let api = TestAPI(server, transport: transport)
            let promises = (0..<24).map { n -> Promise<[Int]> in
                api.request(route: api.get(endpoint: "/slow/\(n)"))
            }
            let answers = try await Promise.all(promises).value
            #expect(answers == (0..<24).map { [$0] })
            let connections = Set(server.requests.map(\.connectionID))
            #expect((1...3).contains(connections.count), "\(connections.count) connections")
        }

        /// Holds its first body until released, telling when it started.
        final class GateParser: JSONParser, @unchecked Sendable {
            // @unchecked: semaphores only.
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)

            override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
                entered.signal()
                release.wait()
                return try super.getInstance(from: data, response: response)
            }
        }

        @Test("a parser busy where responses are delivered holds up no other response of the transport")
        func deliveryIsConcurrent() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            // After a moment, so that the pipeline waits for the transport (see InlineConclusionTests).
            server.route("/small") { _ in .json("[1]").delayingHead(by: 0.2) }
            let transport = try #require(CurlTransport())
            let gate = GateParser()
            let held = TestAPI(server, parser: gate, transport: transport)
            let other = TestAPI(server, transport: transport)
            let heldValue: Promise<[Int]> = held.request(route: held.get(endpoint: "/small"))
            await withCheckedContinuation { entered in
                DispatchQueue.global().async {
                    gate.entered.wait()
                    entered.resume()
                }
            }
            // With a serial delivery queue this answer would wait behind the held parser.
            let otherValue: Promise<[Int]> = other.request(route: other.get(endpoint: "/small"))
            let answer = await otherValue.timeout(10).result
            gate.release.signal()
            #expect(try answer.get() == [1])
            #expect(try await heldValue.value == [1])
        }

        /// Sends bytes as they are.
        final class RawBodyParameters: BaseParameters, @unchecked Sendable {
            let body: Data
            init(_ body: Data) {
                self.body = body
                super.init()
            }
            override func encode(into draft: inout RequestDraft) throws { draft.body = body }
        }

        @Test(
            "bodies of 1 MiB or more are sent with Expect: 100-continue, smaller ones at once",
            arguments: [(64 << 10, false), ((1 << 20) - 1, false), (1 << 20, true), (3 << 20, true)])
        func expectContinue(size: Int, expects: Bool) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/upload") { request in .text("\(request.body.count)") }
            let api = try api(server)
            let body = patternedData(count: size)
            let count: String = try await api.request(
                route: api.post(endpoint: "/upload"), parameters: RawBodyParameters(body)
            ).value
            #expect(count == "\(size)")
            let sent = try #require(server.requests.first)
            #expect(sent.body == body)
            #expect((sent.value(forHeader: "Expect") == "100-continue") == expects)
        }

        @Test("400 requests, 16 at a time, every other one cancelled at once: the others all succeed")
        func cancellationsBesideOthers() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/n/:n") { request in .json("[\(request.pathParameters["n"]!)]") }
            let api = try api(server)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for start in stride(from: 0, to: 400, by: 16) {
                    for n in start..<min(start + 16, 400) {
                        group.addTask {
                            let value: Promise<[Int]> = api.request(route: api.get(endpoint: "/n/\(n)"))
                            if n.isMultiple(of: 2) {
                                // Races the transfer: it may be stopped, or finished already.
                                DispatchQueue.global().async { value.cancel() }
                                if case .success(let answer) = await value.result { #expect(answer == [n]) }
                            } else {
                                let answer = try await value.value
                                #expect(answer == [n])
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }

        @Test("infinite or huge timeouts and deadlines mean none, and never trap")
        func infiniteTimeouts() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/ok") { _ in .json("[1]") }
            let api = try api(server)
            for value in [TimeInterval.infinity, .greatestFiniteMagnitude, 1e300] {
                api.configuration.timeout = value
                api.configuration.deadline = value
                let answer: [Int] = try await api.request(route: api.get(endpoint: "/ok")).value
                #expect(answer == [1])
            }
            #expect(CurlTransfer.nanoseconds(-5) == 0)
            #expect(CurlTransfer.nanoseconds(.nan) == 0)
            #expect(CurlTransfer.nanoseconds(1.5) == 1_500_000_000)
        }

        @Test("200 requests, 16 at a time, all answered once and correctly")
        func concurrent() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/n/:n") { request in .json("[\(request.pathParameters["n"]!)]") }
            let api = try api(server)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for start in stride(from: 0, to: 200, by: 16) {
                    for n in start..<min(start + 16, 200) {
                        group.addTask {
                            let value: [Int] = try await api.request(route: api.get(endpoint: "/n/\(n)"))
                                .value
                            #expect(value == [n])
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(server.requests.count == 200)
        }

        @Test(
            "a download's writer takes bytes until 2 MiB wait for the disk, then asks for a pause, and resumes once written"
        )
        func diskBackpressure() async throws {
            let sink = HeldSink()
            let resumed = Locked(0)
            let writer = CurlDiskWriter(
                sink: sink, resume: { resumed.withLock { $0 += 1 } },
                fail: { _ in Issue.record("no failure expected") })
            let chunk = [UInt8](repeating: 0x61, count: 1 << 20)
            let taken = chunk.withUnsafeBytes { bytes in (0..<3).map { _ in writer.offer(bytes) } }
            #expect(taken == [true, true, false])
            #expect(resumed.withLock { $0 } == 0)
            sink.release()
            let ended: (any Error)? = await withCheckedContinuation { done in
                writer.finish { done.resume(returning: $0) }
            }
            #expect(ended == nil)
            #expect(sink.written.withLock { $0 } == 2 << 20)
            #expect(resumed.withLock { $0 } == 1)
        }
    }

    /// A download sink whose writes wait until the test releases them: a disk that is slow.
    private final class HeldSink: DownloadSink, @unchecked Sendable {
        // @unchecked: `gate` is a semaphore and `written` is locked.
        let startOffset: Int64 = 0
        let maximumBytes: Int64? = nil
        let written = Locked(0)
        private let gate = DispatchSemaphore(value: 0)

        func begin(_ response: HTTPURLResponse) throws -> Bool { true }

        func write(_ data: Data) throws {
            gate.wait()
            gate.signal()
            written.withLock { $0 += data.count }
        }

        func end() throws {}
        func abandon() {}

        func release() { gate.signal() }
    }
#endif
