import Foundation
import OspreyTesting
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The snippets of the "Getting started" article's sections "Unwrap an envelope" and "Choose
/// the transport and the configuration", as written there, against the loopback server. The one
/// difference: `baseURL` is a `var`, so that the test can point it at the server.
enum GettingStartedArticle {
    struct Envelope<Wrapped: Decodable>: Decodable {
        var data: Wrapped
    }

    final class EnvelopeParser: JSONParser {
        override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
            try decoder.decode(Envelope<T>.self, from: data).data
        }
    }

    struct Product: Decodable, Sendable, Equatable {
        var name: String
    }

    final class StoreAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        var baseURL = "https://store.example.com/api"

        func products() -> Promise<[Product]> {
            request(route: get(endpoint: "/products"))
        }
    }
}

@Suite("Articles: getting started, the envelope parser and the initialiser's order")
struct GettingStartedArticleTests {
    typealias Article = GettingStartedArticle

    @Test("the inherited init(responseParser:transport:configuration:); envelopes unwrapped")
    func envelopeAndInitialiser() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/api/products") { _ in .json(#"{"data": [{"name": "kettle"}]}"#) }
        server.route("GET", "/api/empty") { _ in LoopbackServer.Response(status: 204) }

        var configuration = APIConfiguration()
        configuration.timeout = 10  // seconds without progress
        configuration.headers["User-Agent"] = "store-app/1.0"
        let store = Article.StoreAPI(
            responseParser: Article.EnvelopeParser(), transport: URLSessionTransport(),
            configuration: configuration)
        store.baseURL = server.url("/api").absoluteString

        #expect(try await store.products().value == [Article.Product(name: "kettle")])
        #expect(server.requests.last?.value(forHeader: "User-Agent") == "store-app/1.0")
        #expect(store.transport is URLSessionTransport)
        #expect(store.configuration.timeout == 10)

        // The same override serves an APIResponse's value and an optional result.
        let response: APIResponse<[Article.Product]> = try await store.request(
            route: store.get(endpoint: "/products")
        ).value
        #expect(response.value == [Article.Product(name: "kettle")] && response.statusCode == 200)
        let present: [Article.Product]? = try await store.request(
            route: store.get(endpoint: "/products")
        ).value
        #expect(present == [Article.Product(name: "kettle")])
        let absent: [Article.Product]? = try await store.request(route: store.get(endpoint: "/empty")).value
        #expect(absent == nil)
    }
}
