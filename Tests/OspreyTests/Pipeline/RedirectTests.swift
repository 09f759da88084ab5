import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Transport: redirects are followed by Osprey's rules")
struct RedirectTests {
    /// Two origins on one machine: the server under 127.0.0.1, and under localhost.
    private func servers() throws -> (LoopbackServer, String, String) {
        let server = try LoopbackServer()
        server.route("/echo") { .echo(of: $0) }
        return (server, server.baseURL.absoluteString, server.baseURL(host: "localhost").absoluteString)
    }

    private func secretParameters(_ body: [String: String]? = nil) -> any RequestParameters {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer secret", "Cookie": "s=1", "Proxy-Authorization": "Basic x",
            "X-Api-Key": "k",
            "X-Other": "kept",
        ]
        if let body { return JSONParameters(body, headers: headers) }
        return URLParameters(headers: headers)
    }

    @Test("a cross-origin redirect drops credentials; a same-origin one keeps them")
    func credentials() async throws {
        let (server, origin, other) = try servers()
        defer { server.stop() }
        server.route("/away") { _ in .redirect(302, to: "\(other)/echo") }
        server.route("/near") { _ in .redirect(302, to: "/echo") }
        let api = TestAPI(server)

        let away: LoopbackServer.Echo = try await api.request(
            route: .get("\(origin)/away"), parameters: secretParameters()
        )
        .value
        for name in ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"] {
            #expect(away.value(forHeader: name) == nil, "\(name) crossed origins")
        }
        #expect(away.value(forHeader: "X-Other") == "kept")
        #expect(away.value(forHeader: "Host") == "localhost:\(server.port)")

        let near: LoopbackServer.Echo = try await api.request(
            route: .get("\(origin)/near"), parameters: secretParameters()
        )
        .value
        #expect(near.value(forHeader: "Authorization") == "Bearer secret")
        #expect(near.value(forHeader: "X-Api-Key") == "k")
    }

    @Test(
        "headers declared secret in any case, and token-like ones, leave no origin",
        arguments: [["X-Session"], ["x-session"], ["X-SESSION"]])
    func declaredInAnyCase(declared: Set<String>) async throws {
        let (server, origin, other) = try servers()
        defer { server.stop() }
        server.route("/away") { _ in .redirect(307, to: "\(other)/echo") }
        let api = TestAPI(server)
        api.configuration.sensitiveHeaders = declared
        let headers: HTTPHeaders = ["x-Session": "s1", "X-Csrf-Token": "t1", "X-Other": "kept"]
        let away: LoopbackServer.Echo = try await api.request(
            route: .get("\(origin)/away"), parameters: URLParameters(headers: headers)
        )
        .value
        #expect(away.value(forHeader: "X-Session") == nil)
        #expect(away.value(forHeader: "X-Csrf-Token") == nil)
        #expect(away.value(forHeader: "X-Other") == "kept")
    }

    @Test("credentials dropped in a chain are not restored by a later same-host hop")
    func notRestored() async throws {
        let (server, origin, other) = try servers()
        defer { server.stop() }
        server.route("/first") { _ in .redirect(302, to: "\(other)/second") }
        server.route("/second") { _ in .redirect(302, to: "/echo") }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: .get("\(origin)/first"), parameters: secretParameters()
        )
        .value
        #expect(echo.value(forHeader: "Authorization") == nil)
        #expect(server.requests.map(\.path) == ["/first", "/second", "/echo"])
    }

    @Test("307 and 308 keep the method and the body", arguments: [307, 308])
    func keepBody(status: Int) async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/moved") { _ in .redirect(status, to: "/echo") }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: .post("\(origin)/moved"), parameters: JSONParameters(["a": "b"])
        )
        .value
        #expect(echo.method == "POST")
        #expect(echo.body == Data(#"{"a":"b"}"#.utf8))
        #expect(echo.value(forHeader: "Content-Type") == "application/json")
    }

    @Test(
        "303, and 301/302 after a POST, become a GET without a body or body headers",
        arguments: [301, 302, 303])
    func becomeGet(status: Int) async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/created") { _ in .redirect(status, to: "/echo") }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: .post("\(origin)/created"), parameters: JSONParameters(["a": "b"])
        )
        .value
        #expect(echo.method == "GET")
        #expect(echo.body.isEmpty)
        #expect(echo.value(forHeader: "Content-Type") == nil)
        #expect(echo.value(forHeader: "Content-Length") == nil)
    }

    @Test("a relative Location resolves against the current path (RFC 3986)")
    func relativeLocation() async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/a/b") { _ in .redirect(302, to: "c") }
        server.route("/a/c") { _ in .text("resolved") }
        let api = TestAPI(server)
        let text: String = try await api.request(route: .get("\(origin)/a/b")).value
        #expect(text == "resolved")
    }

    @Test("more redirects than the limit fail with redirectRefused")
    func limit() async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/loop") { _ in .redirect(302, to: "/loop") }
        let api = TestAPI(server)
        api.configuration.redirectPolicy = .follow(limit: 3)
        let promise: Promise<Void> = api.request(route: .get("\(origin)/loop"))
        guard case .redirectRefused = try #require(await promise.apiError) else {
            Issue.record("expected redirectRefused")
            return
        }
        #expect(server.requests.count == 4)
    }

    @Test("a 307 resends a body streamed from a file, byte for byte, and the temporary file goes")
    func keepFileBody() async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/moved") { _ in .redirect(307, to: "/echo") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-\(UUID().uuidString)")
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.bin")
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try content.write(to: file)
        let parameters = MultipartParameters(parts: [Part(name: "report", fileURL: file)], boundary: "B")
        parameters.temporaryDirectory = temporary
        let api = TestAPI(server)

        let echo: LoopbackServer.Echo = try await api.request(
            route: .post("\(origin)/moved"), parameters: parameters
        )
        .value
        #expect(echo.method == "POST")
        var expected = Data(
            "--B\r\nContent-Disposition: form-data; name=\"report\"; filename=\"report.bin\"\r\n".utf8)
        expected += Data("Content-Type: application/octet-stream\r\n\r\n".utf8) + content
        expected += Data("\r\n--B--\r\n".utf8)
        #expect(echo.body == expected)
        #expect(server.requests.map(\.method) == ["POST", "POST"])
        await api.drainRequestQueue()
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test(
        "non-HTTP locations are refused",
        arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hi"])
    func nonHTTP(location: String) async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/bad") { _ in .redirect(302, to: location) }
        let api = TestAPI(server)
        let promise: Promise<Void> = api.request(route: .get("\(origin)/bad"))
        guard case .redirectRefused = try #require(await promise.apiError) else {
            Issue.record("expected redirectRefused")
            return
        }
    }

    @Test("with doNotFollow, the 3xx is delivered and is not a success")
    func doNotFollow() async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/moved") { _ in .redirect(301, to: "/echo") }
        let api = TestAPI(server)
        api.configuration.redirectPolicy = .doNotFollow
        let promise: Promise<Void> = api.request(route: .get("\(origin)/moved"))
        let error = try #require(await promise.apiError)
        #expect(error.statusCode == 301)
        #expect(error.response?.value(forHTTPHeaderField: "Location") == "/echo")
        #expect(server.requests.count == 1)
    }

    @Test("https to http is refused (rule check; no TLS server here)")
    func downgrade() throws {
        var request = URLRequest(url: try #require(URL(string: "https://a.example/x")))
        request.httpMethod = "GET"
        let response = try #require(
            HTTPURLResponse(
                url: request.url!, statusCode: 302, httpVersion: nil,
                headerFields: ["Location": "http://a.example/y"])
        )
        guard case .refuse = RedirectRulesProbe.decide(response, request) else {
            Issue.record("a downgrade was followed")
            return
        }
    }

    @Test("a redirect to another port of the same host is cross-origin: no credentials reach it")
    func otherPort() async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        let other = try LoopbackServer()
        defer { other.stop() }
        other.route("/echo") { .echo(of: $0) }
        server.route("/away") { _ in .redirect(307, to: "\(other.baseURL.absoluteString)/echo") }
        let api = TestAPI(server)
        let away: LoopbackServer.Echo = try await api.request(
            route: .get("\(origin)/away"), parameters: secretParameters()
        )
        .value
        for name in ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"] {
            #expect(away.value(forHeader: name) == nil, "\(name) reached another port")
        }
        #expect(away.value(forHeader: "X-Other") == "kept")
        #expect(other.requests.count == 1)
    }

    @Test("by default, ten redirects are followed and the eleventh is refused")
    func defaultLimit() async throws {
        let (server, origin, _) = try servers()
        defer { server.stop() }
        server.route("/hop/:n") { request in
            let n = Int(request.pathParameters["n"] ?? "") ?? 0
            return .redirect(302, to: "/hop/\(n + 1)")
        }
        server.route("/ten/:n") { request in
            let n = Int(request.pathParameters["n"] ?? "") ?? 0
            return n == 10 ? .text("arrived") : .redirect(302, to: "/ten/\(n + 1)")
        }
        let api = TestAPI(server)
        let arrived: String = try await api.request(route: .get("\(origin)/ten/0")).value
        #expect(arrived == "arrived")
        let endless: Promise<Void> = api.request(route: .get("\(origin)/hop/0"))
        guard case .redirectRefused = try #require(await endless.apiError) else {
            Issue.record("expected redirectRefused")
            return
        }
        #expect(server.requests.filter { $0.path.hasPrefix("/hop/") }.count == 11)
    }
}
