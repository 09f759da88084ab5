import Dispatch
import Foundation
import Osprey
import OspreyTesting
import Testing

// Osprey 0.14's README's API snippets (the first is also this README's), run against the
// loopback server. Documented differences:
// subclasses restate `@unchecked Sendable`, and URLs point at the loopback server.

struct Repository: Decodable, Sendable, Equatable {
    var name: String
}

final class RepositoriesAPI: AbstractAPI, @unchecked Sendable {
    let host: String

    init(host: String) {
        self.host = host
        super.init(responseParser: JSONParser())
    }

    func repositoriesOf(_ username: String) -> Promise<[Repository]> {
        return request(route: .get("\(host)/users/\(username)/repos"))
    }
}

final class ProductsAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    init(baseURL: String, responseParser: any ResponseParser = JSONParser()) {
        self.baseURL = baseURL
        super.init(responseParser: responseParser)
    }

    func requestProducts() -> Promise<[Product]> {
        let params = URLParameters(["page": 1])
        return request(route: get(endpoint: "/products"), parameters: params)
    }

    func addProduct(_ product: Product) -> Promise<Product> {
        let params = AuthenticatedJSONParameters(product)
        return request(route: post(endpoint: "/products/"), parameters: params)
    }

    func user() -> Promise<Repository> {
        request(route: get(endpoint: "/user"))
    }

    func getFavorites(of user: Repository) -> Promise<[Product]> {
        request(route: get(endpoint: "/users/\(user.name)/favorites"))
    }
}

struct Page: Decodable {
    var number: Int
    var size: Int
}

struct Envelope<T: Decodable>: Decodable {
    var page: Page
    var results: T
}

class CustomJSONParser: JSONParser {
    override func getInstance<T>(from data: Data, response: URLResponse?) throws -> T where T: Decodable {
        let response = try decoder.decode(Envelope<T>.self, from: data)
        return response.results
    }
}

@Suite("README: the API snippets, end to end")
struct ReadmeQuickstartTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/:name/repos") { request in
            .json(#"[{"name": "\#(request.pathParameters["name"]!)-1"}, {"name": "b"}]"#)
        }
        server.route("GET", "/products") { request in
            request.query == "page=1"
                ? .json(#"[{"id": 1, "name": "Lamp"}]"#) : .text("bad query", status: 400)
        }
        server.route("POST", "/products/") { .json($0.body) }
        server.route("GET", "/user") { _ in .json(#"{"name": "ada"}"#) }
        server.route("GET", "/users/:name/favorites") { _ in .json(#"[{"id": 2, "name": "Book"}]"#) }
    }

    @Test("quick start: the repositories of a user")
    func quickStart() async throws {
        let api = RepositoriesAPI(host: server.baseURL.absoluteString)
        let repositories = try await api.repositoriesOf("a b").value
        #expect(repositories == [Repository(name: "a b-1"), Repository(name: "b")])
        #expect(server.requests.first?.target == "/users/a%20b/repos")
        #expect(server.requests.first?.value(forHeader: "Accept") == "application/json")
        server.stop()
    }

    @Test("BaseAPI with URL parameters; JSON parameters whose preprocess() runs on every request")
    func baseAPI() async throws {
        let api = ProductsAPI(baseURL: server.baseURL.absoluteString)
        #expect(try await api.requestProducts().value.map(\.name) == ["Lamp"])
        let added = try await api.addProduct(Product(id: 3, name: "Chair")).value
        _ = try await api.addProduct(Product(id: 4, name: "Desk")).value
        #expect(added.name == "Chair")
        let posts = server.requests.filter { $0.method == "POST" }
        #expect(posts.count == 2)
        #expect(posts.allSatisfy { $0.value(forHeader: "Authentication") == "token-from-keychain" })
        server.stop()
    }

    @Test("the promise chain: then(api.getFavorites(of:)), onSuccess, onError, finally, in order")
    func chain() async throws {
        let api = ProductsAPI(baseURL: server.baseURL.absoluteString)
        let log = Locked<[String]>([])
        let backgroundQueue = DispatchQueue(label: "background")
        let tail = api.user()
            .then(in: backgroundQueue, api.getFavorites(of:))
            .onSuccess(in: backgroundQueue) { products in
                log.withLock { $0.append("cache \(products.count)") }
            }
            .onSuccess { products in log.withLock { $0.append("update \(products[0].name)") } }
            .onError { error in log.withLock { $0.append("error \(error)") } }
            .finally { log.withLock { $0.append("finally") } }
        _ = try await tail.value
        #expect(log.withLock { $0 } == ["cache 1", "update Book", "finally"])
        server.stop()
    }

    @Test("handlers run on the API's responseQueue, which can be changed")
    func responseQueue() async throws {
        let api = ProductsAPI(baseURL: server.baseURL.absoluteString)
        let key = DispatchSpecificKey<String>()
        let custom = DispatchQueue(label: "custom")
        custom.setSpecific(key: key, value: "custom")
        api.responseQueue = custom
        let onCustom = try await api.user().then { _ in DispatchQueue.getSpecific(key: key) == "custom" }
            .value
        #expect(onCustom)
        api.responseQueue = .global()
        #expect(try await api.user().then { _ in DispatchQueue.getSpecific(key: key) }.value == nil)
        server.stop()
    }

    @Test("a JSONParser subclass unwraps an envelope")
    func customParser() async throws {
        server.route("GET", "/products") { _ in
            .json(
                #"{"page": {"number": 1, "size": 50}, "success": true, "results": [{"id": 1, "name": "Product 1"}]}"#
            )
        }
        let productsAPI = ProductsAPI(
            baseURL: server.baseURL.absoluteString, responseParser: CustomJSONParser())
        #expect(try await productsAPI.requestProducts().value == [Product(id: 1, name: "Product 1")])
        server.stop()
    }
}
