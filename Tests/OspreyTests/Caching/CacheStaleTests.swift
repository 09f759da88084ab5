import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// A caller that takes stale answers: `max-stale`, alone or with `only-if-cached` (an app
/// offline), on the transport the tests run on, with the cache's clock moved by the test.
@Suite("Caching: max-stale and only-if-cached")
struct CacheStaleTests {
    private let base = HTTPCacheTests()

    @Test("max-stale serves a stale entry within its bound, without asking the server")
    func maxStale() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/news") { _, number in
            .text("news \(number)").adding(header: "Cache-Control", "max-age=60")
        }
        let clock = Locked(Date())
        let api = base.api(server, cache: HTTPCache(maximumBytes: 1 << 20, now: { clock.withLock { $0 } }))
        _ = try await base.get(api, "/news")
        clock.withLock { $0 += 100 }  // 40 s stale
        let within = try await base.get(api, "/news", headers: ["Cache-Control": "max-stale=60"])
        #expect(within.value == "news 1" && within.cacheStatus == .hit)
        let unbounded = try await base.get(api, "/news", headers: ["Cache-Control": "max-stale"])
        #expect(unbounded.value == "news 1" && unbounded.cacheStatus == .hit)
        let offline = try await base.get(
            api, "/news", headers: ["Cache-Control": "only-if-cached, max-stale"])
        #expect(offline.value == "news 1" && offline.cacheStatus == .hit)
        #expect(server.requests("/news").count == 1)
        let strictOffline: Promise<String> = api.request(
            route: api.get(endpoint: "/news"),
            parameters: URLParameters(headers: ["Cache-Control": "only-if-cached"]))
        #expect(await strictOffline.apiError?.statusCode == 504)
        let beyond = try await base.get(api, "/news", headers: ["Cache-Control": "max-stale=10"])
        #expect(beyond.value == "news 2" && beyond.cacheStatus == nil)
        #expect(server.requests("/news").count == 2)
    }

    @Test("a response that says must-revalidate is never served stale, whatever max-stale says")
    func mustRevalidate() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/account") { _, number in
            .text("balance \(number)").adding(header: "Cache-Control", "max-age=60, must-revalidate")
        }
        let clock = Locked(Date())
        let api = base.api(server, cache: HTTPCache(maximumBytes: 1 << 20, now: { clock.withLock { $0 } }))
        _ = try await base.get(api, "/account")
        clock.withLock { $0 += 100 }
        let answer = try await base.get(api, "/account", headers: ["Cache-Control": "max-stale"])
        #expect(answer.value == "balance 2" && answer.cacheStatus == nil)
    }
}

/// A cache for a process that serves many users: the shared-cache rules (RFC 9111 §3.5).
@Suite("Caching: a shared cache")
struct SharedCacheTests {
    private let base = HTTPCacheTests()

    @Test("private is never kept, Authorization only with public or s-maxage, s-maxage before max-age")
    func sharedRules() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/private") { _, number in
            .text("private \(number)").adding(header: "Cache-Control", "private, max-age=3600")
        }
        server.route("/authorized") { _, number in
            .text("authorized \(number)").adding(header: "Cache-Control", "max-age=3600")
        }
        server.route("/allowed") { _, number in
            .text("allowed \(number)").adding(header: "Cache-Control", "max-age=3600, s-maxage=60")
        }
        let clock = Locked(Date())
        let cache = HTTPCache(maximumBytes: 1 << 20, isShared: true, now: { clock.withLock { $0 } })
        #expect(cache.isShared && HTTPCache.shared().isShared && !HTTPCache().isShared)
        let api = base.api(server, cache: cache)
        _ = try await base.get(api, "/private")
        #expect(try await base.get(api, "/private").value == "private 2")
        let token: HTTPHeaders = ["Authorization": "Bearer alice"]
        _ = try await base.get(api, "/authorized", headers: token)
        #expect(try await base.get(api, "/authorized", headers: token).value == "authorized 2")
        _ = try await base.get(api, "/allowed", headers: token)
        #expect(try await base.get(api, "/allowed", headers: token).cacheStatus == .hit)
        clock.withLock { $0 += 100 }  // past s-maxage, within max-age: stale for a shared cache
        #expect(try await base.get(api, "/allowed", headers: token).value == "allowed 2")
        // A private cache keeps what the shared one refused.
        let privateAPI = base.api(server, cache: HTTPCache())
        _ = try await base.get(privateAPI, "/private")
        #expect(try await base.get(privateAPI, "/private").cacheStatus == .hit)
    }
}

/// Transfers that go to a file or to a reader pass by the cache both ways.
@Suite("Caching: downloads and streams pass by the cache")
struct CachePassByTests {
    private let base = HTTPCacheTests()

    @Test("a download and a stream neither are served from the cache nor fill it")
    func passBy() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/file") { _, number in
            .text("file \(number)").adding(header: "Cache-Control", "max-age=3600")
        }
        let api = base.api(server, cache: HTTPCache())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 1...2 {
            let saved = try await api.download(
                route: api.get(endpoint: "/file"), to: folder.appendingPathComponent("file-\(index)")
            ).value
            #expect(try String(contentsOf: saved, encoding: .utf8) == "file \(index)")
        }
        let stream = api.stream(route: api.get(endpoint: "/file"))
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }
        #expect(lines == ["file 3"])
        // A plain request after them is the first the cache sees.
        let plain = try await base.get(api, "/file")
        #expect(plain.value == "file 4" && plain.cacheStatus == nil)
        #expect(try await base.get(api, "/file").cacheStatus == .hit)
        #expect(server.requests("/file").count == 4)
    }
}

/// A validation's answer that changes what may be kept.
@Suite("Caching: a 304 that says no-store")
struct CacheNotModifiedRulesTests {
    private let base = HTTPCacheTests()

    @Test("a 304 that says no-store serves the stored body once and ends the entry")
    func notModifiedNoStore() async throws {
        let server = try HTTPCacheTests.CountingServer()
        defer { server.stop() }
        server.route("/doc") { request, number in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" {
                return LoopbackServer.Response(status: 304).adding(header: "ETag", "\"v1\"")
                    .adding(header: "Cache-Control", "no-store")
            }
            return .text("doc \(number)").adding(header: "ETag", "\"v1\"").adding(
                header: "Cache-Control", "no-cache")
        }
        let api = base.api(server, cache: HTTPCache())
        _ = try await base.get(api, "/doc")
        let second = try await base.get(api, "/doc")
        #expect(second.cacheStatus == .revalidated && second.value == "doc 1")
        let third = try await base.get(api, "/doc")
        #expect(third.cacheStatus == nil && third.value == "doc 3")
        #expect(server.requests("/doc").last?.value(forHeader: "If-None-Match") == nil)
    }
}
