import Foundation
import OspreyTesting
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every request a transport sends passes one check, whatever stage changed it last: run on the
/// test transport (the default, or URLSession with `OSPREY_TEST_TRANSPORT=urlsession`).
@Suite("Transport: the wire contract holds after every stage")
struct WireContractTests {
    /// A transport that runs `change` on every request before the test transport sends it, as a
    /// `Provider`'s interceptor does.
    private func intercepting(_ change: @escaping @Sendable (inout InterceptedRequest) -> Void)
        -> any HTTPTransport
    {
        let provider = Provider(
            baseURL: "http://unused", transport: TestTransport.make() ?? CurlOrSession.make()
        )
        .intercept { request, next in
            var request = request
            change(&request)
            return try await next(request)
        }
        return provider.makeTransport()!
    }

    private func expectRefused<T>(_ promise: Promise<T>, mentioning words: String) async throws {
        let error = try #require(await promise.apiError)
        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains(words), "\(reason)")
    }

    @Test("an interceptor's header value with CR LF is refused before any byte is sent")
    func interceptorHeaderInjection() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let api = TestAPI(server, transport: intercepting { $0.headers["X-Note"] = "abc\r\nX-Injected: yes" })
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/items"))
        try await expectRefused(promise, mentioning: "X-Note")
        #expect(server.acceptedConnectionCount == 0)
    }

    @Test(
        "a method that would rewrite the request line is refused, from an interceptor or an adapter",
        arguments: [true, false])
    func methodInjection(fromInterceptor: Bool) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let smuggled = "GET /smuggled HTTP/1.1\r\nX-Injected: m\r\nX-Pad:"
        let api: TestAPI
        if fromInterceptor {
            api = TestAPI(server, transport: intercepting { $0.method = smuggled })
        } else {
            api = TestAPI(server)
            api.configuration.adapters = [AdaptRequest { $0.httpMethod = smuggled }]
        }
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/items"))
        try await expectRefused(promise, mentioning: "not an RFC 9110 token")
        #expect(server.acceptedConnectionCount == 0)
    }

    @Test("an adapter's file URL is refused: the file is never read, and none of it comes back")
    func adapterFileURL() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-secret-\(UUID())")
        try Data("the-secret-bytes".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let api = TestAPI(server)
        api.configuration.adapters = [AdaptRequest { $0.url = secret }]
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/items"))
        let error = try #require(await promise.apiError)
        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("only http and https"), "\(reason)")
        #expect(!"\(error)".contains("the-secret-bytes"))
        #expect(error.data == nil)
    }

    @Test("an interceptor's URL to another scheme is refused as well")
    func interceptorSchemes() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        for url in [
            "ftp://127.0.0.1:\(server.port)/x", "gopher://127.0.0.1:\(server.port)/x", "dict://127.0.0.1/x",
        ] {
            let api = TestAPI(server, transport: intercepting { $0.url = URL(string: url) })
            let promise: Promise<Data> = api.request(route: api.get(endpoint: "/items"))
            try await expectRefused(promise, mentioning: "only http and https")
        }
        #expect(server.acceptedConnectionCount == 0)
    }

    @Test(
        "the check itself: methods, header names and values, schemes and targets",
        arguments: [
            ("GET", "http://a.test/x", [:], true),
            ("PURGE", "https://a.test/x?y=1", ["X-Ok": "a\tb"], true),
            ("GET /x HTTP/1.1", "http://a.test/", [:], false),
            ("", "http://a.test/", [:], false),
            ("GET", "http://a.test/", ["X-Bad": "a\u{0}b"], false),
            ("GET", "http://a.test/", ["X-Bad": "a\nb"], false),
            ("GET", "http://a.test/", ["X Bad": "a"], false),
            ("GET", "file:///etc/hostname", [:], false),
            ("GET", "ftp://a.test/x", [:], false),
            ("GET", "mailto:a@b.test", [:], false),
        ] as [(String, String, [String: String], Bool)])
    func table(method: String, url: String, headers: [String: String], valid: Bool) throws {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.allHTTPHeaderFields = headers.isEmpty ? nil : headers
        let outcome = Result { try TransportRequest(urlRequest: request).validate() }
        if valid {
            #expect(throws: Never.self) { try outcome.get() }
        } else {
            #expect(throws: APIError.self) { try outcome.get() }
        }
    }

    @Test("a redirect to another origin drops a caller-set Host header")
    func redirectDropsHost() async throws {
        let origin = try LoopbackServer()
        let other = try LoopbackServer()
        defer {
            origin.stop()
            other.stop()
        }
        let landing = other.url("/landing", host: "localhost").absoluteString
        origin.route("/start") { _ in .redirect(302, to: landing) }
        other.route("/landing") { request in .echo(of: request) }
        let api = TestAPI(origin)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.get(endpoint: "/start"),
            parameters: URLParameters([:], headers: ["Host": "127.0.0.1:\(origin.port)"])
        ).value
        #expect(origin.requests.first?.value(forHeader: "Host") == "127.0.0.1:\(origin.port)")
        #expect(echo.value(forHeader: "Host") == "localhost:\(other.port)")
    }

    @Test(
        "a caller's Content-Length or Transfer-Encoding never frames the body: the body does",
        arguments: [
            ("Content-Length", "5"), ("content-length", "5"), ("Content-Length", "100000"),
            ("Transfer-Encoding", "chunked"), ("transfer-encoding", "gzip, chunked"),
        ])
    func callersFramingIsReplaced(name: String, value: String) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let api = TestAPI(server)
        let payload = ["name": "a JSON body"]
        let body = try JSONEncoder().encode(payload)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.post(endpoint: "/items"), parameters: JSONParameters(payload, headers: [name: value])
        ).value
        #expect(echo.body == body)
        #expect(echo.value(forHeader: "Content-Length") == "\(body.count)")
        #expect(echo.value(forHeader: "Transfer-Encoding") == nil)
        // The next request on the connection is read as sent: nothing was left over or missing.
        let next: LoopbackServer.Echo = try await api.request(route: api.get(endpoint: "/items")).value
        #expect(next.method == "GET")
        #expect(server.requests.map(\.path) == ["/items", "/items"])
    }

    @Test("header names go out as written, repeated values joined into the first spelling")
    func headerNamesAsWritten() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { _ in .json("[]") }
        let api = TestAPI(server)
        api.configuration.headers["X-GitHub-Api-Version"] = "2022-11-28"
        api.configuration.headers.add(name: "X-Trace", value: "a")
        api.configuration.headers.add(name: "x-trace", value: "b")
        let _: [Int] = try await api.request(route: api.get(endpoint: "/items")).value
        let fields = try #require(server.requests.first).headers
        #expect(fields.filter { $0.name == "X-GitHub-Api-Version" }.map(\.value) == ["2022-11-28"])
        #expect(fields.filter { $0.name.lowercased() == "x-trace" } == [.init("X-Trace", "a, b")])
    }

    @Test("a bodyless request drops a caller's Content-Length, even one an interceptor set")
    func bodylessFraming() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let api = TestAPI(server, transport: intercepting { $0.headers["Content-Length"] = "40" })
        for _ in 0..<2 {
            let echo: LoopbackServer.Echo = try await api.request(route: api.get(endpoint: "/items")).value
            #expect(echo.value(forHeader: "Content-Length") == nil)
            #expect(echo.body.isEmpty)
        }
        #expect(server.requests.count == 2)
    }
}

/// The transport to use where the test transport is the library's default.
enum CurlOrSession {
    static func make() -> any HTTPTransport {
        AbstractAPI(responseParser: JSONParser()).transport
    }
}
