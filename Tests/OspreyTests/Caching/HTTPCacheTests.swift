import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// The API's HTTP cache against the loopback server, on the transport the tests run on: what it
/// serves without the server, what it validates, and what it never keeps.
@Suite("Caching: HTTPCache against a server")
struct HTTPCacheTests {
    /// A server that counts the requests to each path and records their headers.
    final class CountingServer: Sendable {
        let server: LoopbackServer
        private let seen = Locked<[String: [LoopbackServer.Request]]>([:])

        init() throws { server = try LoopbackServer() }

        /// Answers `path` with `reply(request, number)` (numbered from 1).
        func route(
            _ path: String,
            _ reply: @escaping @Sendable (LoopbackServer.Request, Int) -> LoopbackServer.Response
        ) {
            server.route(path) { [seen] request in
                let number = seen.withLock { seen in
                    seen[path, default: []].append(request)
                    return seen[path]!.count
                }
                return reply(request, number)
            }
        }

        func requests(_ path: String) -> [LoopbackServer.Request] { seen.withLock { $0[path] ?? [] } }
        func stop() { server.stop() }
    }

    func api(_ server: CountingServer, cache: HTTPCache) -> TestAPI {
        let api = TestAPI(server.server)
        api.configuration.cache = cache
        return api
    }

    func get(
        _ api: TestAPI, _ path: String, headers: HTTPHeaders = [:]
    ) async throws -> APIResponse<String> {
        try await api.request(route: api.get(endpoint: path), parameters: URLParameters(headers: headers))
            .value
    }

    @Test("a fresh response is served again without a request reaching the server")
    func freshServedFromStore() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/fresh") { _, number in
            .text("answer \(number)").adding(header: "Cache-Control", "max-age=3600")
        }
        let api = api(server, cache: HTTPCache())
        let lines = Locked<[String]>([])
        api.configuration.monitors = [LoggingMonitor { line in lines.withLock { $0.append(line) } }]
        let first = try await get(api, "/fresh")
        #expect(first.value == "answer 1" && first.cacheStatus == nil)
        let second = try await get(api, "/fresh")
        #expect(second.value == "answer 1")
        #expect(second.cacheStatus == .hit)
        #expect(second.headers["Age"] != nil)
        #expect(server.requests("/fresh").count == 1)
        let logged = lines.withLock { $0 }
        #expect(
            logged.last?.contains("succeeded") == true && logged.last?.contains("from the cache") == true,
            "\(logged)")
        #expect(logged.filter { $0.contains("from the cache") }.count == 1, "\(logged)")
        // A HEAD is answered from the stored GET, without a body.
        let head: APIResponse<Data> = try await api.request(route: api.route(.head, endpoint: "/fresh")).value
        #expect(head.cacheStatus == .hit && head.value.isEmpty)
        #expect(server.requests("/fresh").count == 1)
    }

    @Test("a stale response is validated with If-None-Match, and a 304 serves the stored body")
    func staleRevalidatedWithETag() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/tagged") { request, number in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" {
                return LoopbackServer.Response(status: 304).adding(header: "ETag", "\"v1\"")
                    .adding(header: "X-Checked", "\(number)")
            }
            return .text("body \(number)").adding(header: "ETag", "\"v1\"").adding(
                header: "Cache-Control", "no-cache")
        }
        let api = api(server, cache: HTTPCache())
        #expect(try await get(api, "/tagged").value == "body 1")
        let second = try await get(api, "/tagged")
        #expect(second.value == "body 1")
        #expect(second.statusCode == 200)
        #expect(second.cacheStatus == .revalidated)
        // The 304's headers refresh the stored ones.
        #expect(second.headers["X-Checked"] == "2")
        let requests = server.requests("/tagged")
        #expect(requests.count == 2)
        #expect(requests.first?.value(forHeader: "If-None-Match") == nil)
        #expect(requests.last?.value(forHeader: "If-None-Match") == "\"v1\"")
    }

    @Test("Last-Modified is sent back as If-Modified-Since once the response is stale")
    func staleRevalidatedWithDate() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        let modified = "Tue, 01 Dec 2026 10:00:00 GMT"
        server.route("/dated") { request, _ in
            if request.value(forHeader: "If-Modified-Since") == modified {
                return LoopbackServer.Response(status: 304)
            }
            return .text("dated").adding(header: "Last-Modified", modified).adding(
                header: "Cache-Control", "max-age=3600")
        }
        let clock = Locked(Date())
        let api = api(server, cache: HTTPCache(maximumBytes: 1 << 20, now: { clock.withLock { $0 } }))
        _ = try await get(api, "/dated")
        #expect(try await get(api, "/dated").cacheStatus == .hit)
        clock.withLock { $0 += 3601 }
        let stale = try await get(api, "/dated")
        #expect(stale.value == "dated" && stale.cacheStatus == .revalidated)
        #expect(server.requests("/dated").last?.value(forHeader: "If-Modified-Since") == modified)
        // Refreshed by the 304: fresh again for another hour.
        #expect(try await get(api, "/dated").cacheStatus == .hit)
        #expect(server.requests("/dated").count == 2)
    }

    @Test("Vary: a request with other values of the varied header is not served another's answer")
    func varyRespected() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/greeting") { request, _ in
            let language = request.value(forHeader: "Accept-Language") ?? "none"
            return .text("hello in \(language)").adding(header: "Cache-Control", "max-age=3600")
                .adding(header: "Vary", "Accept-Language")
        }
        let api = api(server, cache: HTTPCache())
        #expect(try await get(api, "/greeting", headers: ["Accept-Language": "en"]).value == "hello in en")
        let french = try await get(api, "/greeting", headers: ["Accept-Language": "fr"])
        #expect(french.value == "hello in fr" && french.cacheStatus == nil)
        let english = try await get(api, "/greeting", headers: ["Accept-Language": "en"])
        #expect(english.value == "hello in en" && english.cacheStatus == .hit)
        #expect(try await get(api, "/greeting", headers: ["Accept-Language": "fr"]).cacheStatus == .hit)
        #expect(server.requests("/greeting").count == 2)
    }

    @Test(
        "no-store, Vary: * and Set-Cookie are never stored",
        arguments: [
            ("Cache-Control", "no-store, max-age=3600"), ("Vary", "*"), ("Set-Cookie", "session=1"),
        ])
    func neverStored(header: String, value: String) async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/private") { _, number in
            var response = LoopbackServer.Response.text("answer \(number)").adding(header: header, value)
            if header != "Cache-Control" {
                response = response.adding(header: "Cache-Control", "max-age=3600")
            }
            return response
        }
        let cache = HTTPCache()
        let api = api(server, cache: cache)
        _ = try await get(api, "/private")
        let second = try await get(api, "/private")
        #expect(second.value == "answer 2" && second.cacheStatus == nil)
        #expect(cache.totalBytes == 0)
    }

    @Test("an answer reached through a redirect is not stored for the first URL")
    func redirectNotStored() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/old") { _, _ in .redirect(302, to: "/new") }
        server.route("/new") { _, number in
            .text("new \(number)").adding(header: "Cache-Control", "max-age=3600")
        }
        let api = api(server, cache: HTTPCache())
        _ = try await get(api, "/old")
        let again = try await get(api, "/old")
        #expect(again.cacheStatus == nil && again.value == "new 2")
        #expect(server.requests("/old").count == 2)
    }

    @Test("an unsafe method that succeeds makes the URL's stored response go")
    func invalidatedByPost() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/items") { request, number in
            request.method == "POST"
                ? .text("created", status: 201)
                : .text("items \(number)").adding(header: "Cache-Control", "max-age=3600")
        }
        let api = api(server, cache: HTTPCache())
        _ = try await get(api, "/items")
        #expect(try await get(api, "/items").cacheStatus == .hit)
        let _: Data = try await api.request(route: api.post(endpoint: "/items")).value
        let after = try await get(api, "/items")
        #expect(after.cacheStatus == nil && after.value == "items 3")
    }

    @Test("per request: no-cache forces a validation, no-store skips, only-if-cached answers 504")
    func requestDirectives() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        server.route("/doc") { request, number in
            if request.value(forHeader: "If-None-Match") == "\"d\"" {
                return LoopbackServer.Response(status: 304)
            }
            return .text("doc \(number)").adding(header: "Cache-Control", "max-age=3600").adding(
                header: "ETag", "\"d\"")
        }
        let api = api(server, cache: HTTPCache())
        let empty = await
            (api.request(
                route: api.get(endpoint: "/doc"),
                parameters: URLParameters(headers: ["Cache-Control": "only-if-cached"])) as Promise<String>)
            .apiError
        #expect(empty?.statusCode == 504, "\(String(describing: empty))")
        #expect(server.requests("/doc").isEmpty)
        _ = try await get(api, "/doc")
        let forced = try await get(api, "/doc", headers: ["Cache-Control": "no-cache"])
        #expect(forced.cacheStatus == .revalidated && forced.value == "doc 1")
        let skipped = try await get(api, "/doc", headers: ["Cache-Control": "no-store"])
        #expect(skipped.cacheStatus == nil && skipped.value == "doc 3")
        #expect(try await get(api, "/doc", headers: ["Cache-Control": "only-if-cached"]).cacheStatus == .hit)
        #expect(server.requests("/doc").count == 3)
    }

    @Test("the memory cache stays within its byte limit, the least recently used going first")
    func memoryLimit() async throws {
        let server = try CountingServer()
        defer { server.stop() }
        let body = String(repeating: "x", count: 10_000)
        server.route("/blob/:n") { _, _ in .text(body).adding(header: "Cache-Control", "max-age=3600") }
        let cache = HTTPCache(maximumBytes: 35_000)
        let api = api(server, cache: cache)
        for index in 0..<6 {
            _ = try await get(api, "/blob/\(index)")
            #expect(cache.totalBytes <= 35_000)
        }
        #expect(cache.totalBytes > 20_000, "the last ones are kept")
        #expect(try await get(api, "/blob/5").cacheStatus == .hit)
        #expect(try await get(api, "/blob/0").cacheStatus == nil)
    }
}
