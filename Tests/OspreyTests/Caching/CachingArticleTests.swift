import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// The snippets of the "Caching responses" article, against the loopback server.
@Suite("Caching: the article's snippets")
struct CachingArticleTests {
    struct Product: Decodable, Sendable, Equatable {
        var name: String
    }

    final class CatalogAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        var baseURL = "https://api.example.com"
    }

    @Test("a cache in memory or on disk; cacheStatus tells hit, revalidated, miss and network apart")
    func snippets() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let count = Locked(0)
        server.route("/products") { request in
            count.withLock { $0 += 1 }
            if request.value(forHeader: "If-None-Match") == "\"p1\"" {
                return LoopbackServer.Response(status: 304)
            }
            return .json(#"[{"name": "kettle"}]"#).adding(header: "ETag", "\"p1\"")
                .adding(header: "Cache-Control", "max-age=3600")
        }
        let api = CatalogAPI(responseParser: JSONParser())
        api.baseURL = server.baseURL.absoluteString
        api.configuration.cache = HTTPCache(maximumBytes: 20 << 20)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        api.configuration.cache = try HTTPCache(folder: folder, maximumBytes: 100 << 20)

        func describe(_ response: APIResponse<[Product]>) -> String {
            switch response.cacheStatus {
            case .hit?: "from the cache, no request made"
            case .revalidated?: "the server said it has not changed"
            case .miss?: "only-if-cached, and nothing stored"
            case nil: "from the network"
            }
        }
        let offline = URLParameters(headers: ["Cache-Control": "only-if-cached"])
        let missed = await
            (api.request(route: api.get(endpoint: "/products"), parameters: offline)
            as Promise<[Product]>).apiError
        #expect(missed?.statusCode == 504)
        var response: APIResponse<[Product]> = try await api.request(route: api.get(endpoint: "/products"))
            .value
        #expect(describe(response) == "from the network")
        response = try await api.request(route: api.get(endpoint: "/products")).value
        #expect(describe(response) == "from the cache, no request made")
        let latest = URLParameters(headers: ["Cache-Control": "no-cache"])
        response = try await api.request(route: api.get(endpoint: "/products"), parameters: latest).value
        #expect(describe(response) == "the server said it has not changed")
        #expect(response.value == [Product(name: "kettle")])
        let bypass = URLParameters(headers: ["Cache-Control": "no-store"])
        response = try await api.request(route: api.get(endpoint: "/products"), parameters: bypass).value
        #expect(describe(response) == "from the network")
        #expect(count.withLock { $0 } == 3)
    }
}
