import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// The cache and credentials where they meet, on the transport the tests run on: an answer for
/// one user's credentials (headers, jar cookies, a URL's user and password) reaches that user
/// alone, and no credential is written into the cache.
@Suite("Caching: HTTPCache and credentials")
struct CacheCredentialsTests {
    private let base = HTTPCacheTests()

    /// A server where `/login?user=NAME` sets `session=NAME` and `/me` answers `A` for alice's
    /// session and `B` otherwise, privately for an hour (the body does not hold the cookie, so a
    /// cookie found in a cache file came from a header).
    private func sessionServer(varyingOnCookie: Bool) throws -> HTTPCacheTests.CountingServer {
        let server = try HTTPCacheTests.CountingServer()
        server.route("/login") { request, _ in
            let user = request.target.split(separator: "=").last.map(String.init) ?? "nobody"
            return .text("hello").adding(header: "Set-Cookie", "session=\(user); Path=/")
        }
        server.route("/me") { request, _ in
            let answer = LoopbackServer.Response.text(
                request.value(forHeader: "Cookie") == "session=alice" ? "A" : "B"
            )
            .adding(header: "Cache-Control", "private, max-age=3600")
            return varyingOnCookie ? answer.adding(header: "Vary", "Cookie") : answer
        }
        return server
    }

    @Test("a response to a bearer token is stored, and served to the same token alone")
    func bearerTokens() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/mine") { request, number in
            .text("\(request.value(forHeader: "Authorization") ?? "nobody") \(number)")
                .adding(header: "Cache-Control", "max-age=3600")
        }
        let api = base.api(server, cache: HTTPCache())
        let alice: HTTPHeaders = ["Authorization": "Bearer alice"]
        #expect(try await base.get(api, "/mine", headers: alice).value == "Bearer alice 1")
        let again = try await base.get(api, "/mine", headers: alice)
        #expect(again.value == "Bearer alice 1" && again.cacheStatus == .hit)
        let bob = try await base.get(api, "/mine", headers: ["Authorization": "Bearer bob"])
        #expect(bob.value == "Bearer bob 2" && bob.cacheStatus == nil)
        let nobody = try await base.get(api, "/mine")
        #expect(nobody.value == "nobody 3" && nobody.cacheStatus == nil)
        #expect(try await base.get(api, "/mine", headers: alice).value == "Bearer alice 1")
        #expect(server.requests("/mine").count == 3)
    }

    @Test("the jar's cookies count: one user's private answer is never served to the next")
    func jarCookies() async throws {
        let server = try sessionServer(varyingOnCookie: true)
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = base.api(server, cache: try HTTPCache(folder: folder))
        _ = try await base.get(api, "/login?user=alice")
        let alice = try await base.get(api, "/me")
        #expect(alice.value == "A" && alice.cacheStatus == nil)
        _ = try await base.get(api, "/login?user=bob")
        let bob = try await base.get(api, "/me")
        #expect(bob.value == "B")
        #expect(bob.cacheStatus == nil)
        _ = try await base.get(api, "/login?user=alice")
        let aliceAgain = try await base.get(api, "/me")
        #expect(aliceAgain.value == "A" && aliceAgain.cacheStatus == .hit)
        #expect(server.requests("/me").count == 2)
        // The cookies were compared as digests: neither is in a file of the cache.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = String(
                decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            #expect(!text.contains("session=alice") && !text.contains("session=bob"), "\(name)")
        }
    }

    @Test("a URL's user and password are credentials, and never reach a cache file")
    func userInfo() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/report") { _, number in
            .text("report \(number)").adding(header: "Cache-Control", "max-age=3600")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = base.api(server, cache: try HTTPCache(folder: folder))
        let port = server.server.port
        func fetch(_ userInfo: String) async throws -> APIResponse<String> {
            try await api.request(route: .get("http://\(userInfo)@127.0.0.1:\(port)/report")).value
        }
        #expect(try await fetch("alice:pw-secret").value == "report 1")
        #expect(try await fetch("alice:pw-secret").cacheStatus == .hit)
        let other = try await fetch("alice:other-secret")
        #expect(other.value == "report 2" && other.cacheStatus == nil)
        let plain: APIResponse<String> = try await api.request(route: api.get(endpoint: "/report")).value
        #expect(plain.value == "report 3")
        // A token in the query is part of the key, which is kept only as a digest.
        let query: APIResponse<String> = try await api.request(
            route: .get("http://127.0.0.1:\(port)/report?access_token=query-secret")
        ).value
        #expect(query.value == "report 4")
        let again: APIResponse<String> = try await api.request(
            route: .get("http://127.0.0.1:\(port)/report?access_token=query-secret")
        ).value
        #expect(again.cacheStatus == .hit && again.request.url?.query == "access_token=query-secret")
        let basic = Data("alice:pw-secret".utf8).base64EncodedString()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = String(
                decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            #expect(!text.contains("pw-secret") && !text.contains(basic) && !text.contains("other-secret"))
            #expect(!text.contains("query-secret"))
        }
    }

    @Test("a 304 that sets a cookie refreshes the entry, and the cookie is never stored or served again")
    func notModifiedCookie() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/item") { request, number in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" {
                return .text("", status: 304).adding(
                    header: "Set-Cookie", "tracker=\(number); Path=/elsewhere"
                )
                .adding(header: "ETag", "\"v1\"")
            }
            return .text("item").adding(header: "ETag", "\"v1\"").adding(header: "Cache-Control", "no-cache")
        }
        let api = base.api(server, cache: HTTPCache())
        _ = try await base.get(api, "/item")
        let second = try await base.get(api, "/item")
        #expect(second.cacheStatus == .revalidated && second.value == "item")
        let third = try await base.get(api, "/item")
        #expect(third.cacheStatus == .revalidated)
        // The stored entry never took the 304's cookie, so no answer served from it carries one.
        #expect(second.headers["Set-Cookie"] == nil && third.headers["Set-Cookie"] == nil)
    }

    @Test("LoggingMonitor says why a response was not stored")
    func whyNotStored() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/cookie") { _, _ in
            .text("c").adding(header: "Cache-Control", "max-age=60").adding(header: "Set-Cookie", "a=1")
        }
        server.route("/plain") { _, _ in .text("p") }
        server.route("/kept") { _, _ in .text("k").adding(header: "Cache-Control", "max-age=60") }
        let api = base.api(server, cache: HTTPCache())
        let lines = Locked<[String]>([])
        api.configuration.monitors = [LoggingMonitor { line in lines.withLock { $0.append(line) } }]
        for path in ["/cookie", "/plain", "/kept"] { _ = try await base.get(api, path) }
        let logged = lines.withLock { $0 }.filter { $0.contains("succeeded") }
        #expect(logged.count == 3, "\(logged)")
        #expect(
            logged.first { $0.contains("/cookie") }?.contains("not stored: the response sets a cookie")
                == true)
        #expect(
            logged.first { $0.contains("/plain") }?.contains("not stored: the response has no freshness")
                == true)
        #expect(logged.first { $0.contains("/kept") }?.contains("not stored") == false)
    }

    @Test("an interceptor's credentials count: the cache sits below a provider's interceptors")
    func interceptorCredentials() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/me") { request, number in
            .text("\(request.value(forHeader: "Authorization") ?? "nobody") \(number)")
                .adding(header: "Cache-Control", "private, max-age=3600")
        }
        let user = Locked("alice")
        let provider = Provider(
            baseURL: "http://unused", transport: TestTransport.make() ?? CurlOrSession.make()
        )
        .intercept { request, next in
            var request = request
            request.headers["Authorization"] = "Bearer \(user.withLock { $0 })"
            return try await next(request)
        }
        let api = TestAPI(server.server, transport: provider.makeTransport()!)
        api.configuration.cache = HTTPCache()
        #expect(try await base.get(api, "/me").value == "Bearer alice 1")
        #expect(try await base.get(api, "/me").cacheStatus == .hit)
        user.withLock { $0 = "bob" }
        let bob = try await base.get(api, "/me")
        #expect(bob.value == "Bearer bob 2" && bob.cacheStatus == nil)
    }

    @Test("a header the API declared secret is kept only as a digest when the response varies on it")
    func declaredVary() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/tenant") { request, number in
            .text("tenant \(number)").adding(header: "Cache-Control", "max-age=3600")
                .adding(header: "Vary", "X-Session")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = base.api(server, cache: try HTTPCache(folder: folder))
        api.configuration.sensitiveHeaders.insert("x-session")
        _ = try await base.get(api, "/tenant", headers: ["X-Session": "session-value-1"])
        #expect(
            try await base.get(api, "/tenant", headers: ["X-Session": "session-value-1"]).cacheStatus == .hit)
        #expect(
            try await base.get(api, "/tenant", headers: ["X-Session": "session-value-2"]).cacheStatus == nil)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = String(
                decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            #expect(!text.contains("session-value"), "\(name)")
        }
    }

    /// A transport of a user's own around the test transport, which says which jar it uses.
    private struct Wrapper: CookieJarTransport {
        let base: any HTTPTransport
        var cookies: CookieJar? { (base as? any CookieJarTransport)?.cookies }
        func send(_ request: TransportRequest) -> Promise<TransportResponse> { base.send(request) }
    }

    @Test("a wrapping transport that forwards its jar keeps users apart too")
    func wrappedJar() async throws {
        let server = try sessionServer(varyingOnCookie: false)
        defer { server.stop() }
        let wrapper = Wrapper(base: TestTransport.make() ?? CurlOrSession.make())
        #expect(wrapper.cookies != nil)
        let api = TestAPI(server.server, transport: wrapper)
        api.configuration.cache = HTTPCache()
        _ = try await base.get(api, "/login?user=alice")
        #expect(try await base.get(api, "/me").value == "A")
        _ = try await base.get(api, "/login?user=bob")
        let bob = try await base.get(api, "/me")
        #expect(bob.value == "B" && bob.cacheStatus == nil)
    }
}
