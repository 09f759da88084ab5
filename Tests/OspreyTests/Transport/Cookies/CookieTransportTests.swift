import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// Cookies through the whole pipeline, on the test transport (both, in CI): the same rules
/// whatever carries the request.
@Suite("Cookies: kept and sent by every transport")
struct CookieTransportTests {
    /// A server that sets what `/set` is told and echoes every request.
    private func server() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/set") { request in
            var response = LoopbackServer.Response.echo(of: request)
            for item in request.queryItems where item.name.hasPrefix("cookie") {
                response = response.adding(header: "Set-Cookie", item.value ?? "")
            }
            return response
        }
        server.route("/echo/*rest") { request in .echo(of: request) }
        return server
    }

    private func set(_ cookies: String..., on api: TestAPI) async throws {
        let _: LoopbackServer.Echo = try await api.request(
            route: api.get(endpoint: "/set"), parameters: URLParameters(["cookie": cookies])
        ).value
    }

    private func cookieHeader(_ api: TestAPI, path: String = "/echo/x", host: String? = nil) async throws
        -> String?
    {
        let route: Route =
            if let host { .get(URL(string: "http://\(host)\(path)")!.absoluteString) } else {
                api.get(endpoint: path)
            }
        let echo: LoopbackServer.Echo = try await api.request(route: route).value
        return echo.value(forHeader: "Cookie")
    }

    @Test("a session cookie set by one response is sent back on later requests, by path")
    func roundTrip() async throws {
        let server = try server()
        defer { server.stop() }
        let api = TestAPI(server)
        try await set("session=abc123; Path=/; HttpOnly", "scoped=1; Path=/echo/admin", on: api)
        #expect(try await cookieHeader(api) == "session=abc123")
        #expect(try await cookieHeader(api, path: "/echo/admin/users") == "scoped=1; session=abc123")
    }

    @Test("a cookie set on a redirect hop is kept and sent to the next hop")
    func setOnRedirect() async throws {
        let server = try server()
        defer { server.stop() }
        server.route("/login") { _ in
            LoopbackServer.Response.redirect(302, to: "/echo/home").adding(
                header: "Set-Cookie", "session=xyz; Path=/")
        }
        let api = TestAPI(server)
        let landing: LoopbackServer.Echo = try await api.request(route: api.get(endpoint: "/login")).value
        #expect(landing.value(forHeader: "Cookie") == "session=xyz")
        #expect(try await cookieHeader(api) == "session=xyz")
    }

    @Test("Max-Age=0 removes a cookie, and a Secure cookie set over plain http is never kept or sent")
    func removalAndSecure() async throws {
        let server = try server()
        defer { server.stop() }
        let api = TestAPI(server)
        try await set("a=1", "b=2", on: api)
        #expect(try await cookieHeader(api) == "a=1; b=2")
        try await set("a=; Max-Age=0", "s=secret; Secure", on: api)
        #expect(try await cookieHeader(api) == "b=2")
    }

    @Test("two Set-Cookie lines of one response, one with an Expires date, are both kept")
    func severalInOneResponse() async throws {
        let server = try server()
        defer { server.stop() }
        let api = TestAPI(server)
        try await set("a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/", "b=2; Path=/", on: api)
        #expect(try await cookieHeader(api) == "a=1; b=2")
    }

    @Test("a response with 14,000 Set-Cookie lines leaves 50 cookies, and the next request carries them")
    func manySetCookieLines() async throws {
        let server = try server()
        defer { server.stop() }
        // Empty values keep the head (294 KB) under libcurl's limit of 300 KiB.
        server.route("/flood") { _ in
            (0..<14_000).reduce(LoopbackServer.Response.text("")) { response, index in
                response.adding(header: "Set-Cookie", "c\(index)=")
            }
        }
        let jar = CookieJar()
        let api = TestAPI(server, transport: TestTransport.make(cookies: jar))
        let _: String = try await api.request(route: api.get(endpoint: "/flood")).value
        #expect(jar.allCookies.count == 50)
        let sent = try #require(try await cookieHeader(api))
        #expect(sent.split(separator: ";").count == 50)
        #expect(sent.hasPrefix("c13950=;") && sent.hasSuffix("c13999="))
    }

    @Test("a cookie goes only to the host that set it: not to another name for it")
    func hostOnly() async throws {
        let server = try server()
        defer { server.stop() }
        let api = TestAPI(server)
        try await set("a=1", on: api)
        #expect(try await cookieHeader(api, host: "localhost:\(server.port)") == nil)
        #expect(try await cookieHeader(api, host: "127.0.0.1:\(server.port)") == "a=1")
    }

    @Test("a Cookie header the caller sets is sent as it is, without the jar's")
    func callersHeaderLeftAlone() async throws {
        let server = try server()
        defer { server.stop() }
        let api = TestAPI(server)
        try await set("a=1", on: api)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.get(endpoint: "/echo/x"), parameters: URLParameters([:], headers: ["Cookie": "mine=2"])
        ).value
        #expect(echo.values(forHeader: "Cookie") == ["mine=2"])
    }

    @Test("a redirect to another origin drops the caller's Cookie; that origin gets only its own cookies")
    func crossOriginRedirect() async throws {
        let origin = try server()
        let other = try server()
        defer {
            origin.stop()
            other.stop()
        }
        let api = TestAPI(origin)
        let otherHost = "localhost:\(other.port)"
        let _: LoopbackServer.Echo = try await api.request(
            route: .get("http://\(otherHost)/set?cookie=theirs%3D1")
        ).value
        origin.route("/away") { _ in .redirect(302, to: "http://\(otherHost)/echo/landing") }
        let landing: LoopbackServer.Echo = try await api.request(
            route: api.get(endpoint: "/away"),
            parameters: URLParameters([:], headers: ["Cookie": "mine=secret"])
        ).value
        #expect(landing.values(forHeader: "Cookie") == ["theirs=1"])
    }

    @Test(
        "two APIs with their own transports do not see each other's cookies; a transport without a jar keeps none"
    )
    func separateJars() async throws {
        let server = try server()
        defer { server.stop() }
        let first = TestAPI(server, transport: TestTransport.make(cookies: CookieJar()))
        let second = TestAPI(server, transport: TestTransport.make(cookies: CookieJar()))
        try await set("who=first", on: first)
        #expect(try await cookieHeader(first) == "who=first")
        #expect(try await cookieHeader(second) == nil)
        let none = TestAPI(server, transport: TestTransport.make(cookies: nil))
        try await set("who=none", on: none)
        #expect(try await cookieHeader(none) == nil)
    }

    @Test("the jar's cookies are never in the request an error shows")
    func notInErrors() async throws {
        let server = try server()
        defer { server.stop() }
        server.route("/fail") { _ in .json(#"{"error": "no"}"#, status: 500) }
        let jar = CookieJar()
        let api = TestAPI(server, transport: TestTransport.make(cookies: jar))
        try await set("session=abc123", on: api)
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/fail"))
        let error = try #require(await promise.apiError)
        #expect(error.request?.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(server.requests.last?.value(forHeader: "Cookie") == "session=abc123")
        #expect(jar.cookies(for: server.url("/")).map(\.name) == ["session"])
    }
}

extension LoopbackServer.Echo {
    /// Every value of the header called `name`, in order.
    fileprivate func values(forHeader name: String) -> [String] {
        headers.filter { $0.first?.caseInsensitiveCompare(name) == .orderedSame }.compactMap(\.last)
    }
}
