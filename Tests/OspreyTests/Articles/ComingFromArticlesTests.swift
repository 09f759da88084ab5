import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// The snippets of the "Coming from Alamofire" and "Coming from AsyncHTTPClient" articles, as
/// written there, against the loopback server.
@Suite("Articles: coming from Alamofire and from AsyncHTTPClient")
struct ComingFromArticlesTests {
    struct Product: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct NewProduct: Encodable, Sendable {
        var name: String
    }

    final class ShopAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init(baseURL: String) {
            self.baseURL = baseURL
            super.init(responseParser: JSONParser())
        }

        func products(page: Int) -> Promise<[Product]> {
            request(route: get(endpoint: "products"), parameters: URLParameters(["page": page]))
        }

        func add(_ product: NewProduct) -> Promise<APIResponse<Product>> {
            request(route: post(endpoint: "products"), parameters: JSONParameters(product))
        }
    }

    @Test("Alamofire: the client, handlers, await, adapters, retries and monitors")
    func alamofire() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let calls = Locked(0)
        server.route("GET", "/api/products") { request in
            let first = calls.withLock { calls in
                calls += 1
                return calls == 1
            }
            // The first attempt is refused, so that the retry policy shows.
            if first { return .text("busy", status: 503) }
            return .json(#"[{"id": 1, "name": "kettle \#(request.target)"}]"#)
                .adding(header: "X-Agent", request.value(forHeader: "User-Agent") ?? "")
        }
        server.route("POST", "/api/products") { request in
            let sent = try? JSONDecoder().decode([String: String].self, from: request.body)
            return .json(#"{"id": 2, "name": "\#(sent?["name"] ?? "?")"}"#, status: 201)
        }
        let lines = Locked<[String]>([])
        let shop = ShopAPI(baseURL: server.url("/api").absoluteString)
        shop.configuration.adapters = [
            AdaptRequest { request in request.setValue("shop-app/2.1", forHTTPHeaderField: "User-Agent") }
        ]
        shop.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        shop.configuration.monitors = [LoggingMonitor { line in lines.withLock { $0.append(line) } }]

        let products = try await shop.products(page: 1).value
        #expect(products == [Product(id: 1, name: "kettle /api/products?page=1")])
        #expect(server.requests.last?.value(forHeader: "User-Agent") == "shop-app/2.1")
        #expect(lines.withLock { $0 }.contains { $0.contains("retrying") })

        let created = try await shop.add(NewProduct(name: "kettle")).value
        #expect(created.statusCode == 201 && created.value == Product(id: 2, name: "kettle"))

        let missing = await (shop.request(route: shop.get(endpoint: "nothing")) as Promise<Data>).apiError
        #expect(missing?.statusCode == 404)
    }

    struct Container: Decodable, Sendable {
        var id: String
        var image: String
    }

    final class EngineAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init(baseURL: String, transport: (any HTTPTransport)? = nil) {
            self.baseURL = baseURL
            super.init(responseParser: JSONParser(keyMapping: .snakeCase), transport: transport)
            configuration.timeout = 10
            configuration.deadline = 30
        }

        func containers() async throws -> [Container] {
            try await request(route: get(endpoint: "containers/json")).value
        }

        func logs(of id: String) -> ResponseStream {
            stream(route: get(endpoint: "containers/\(id)/logs"))
        }
    }

    #if canImport(FoundationNetworking)
        @Test(
            "AsyncHTTPClient: a Docker-style engine on a Unix socket, its logs streamed; TLS and proxy options"
        )
        func asyncHTTPClient() async throws {
            let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
                "engine-\(UUID()).sock"
            ).path
            let server = try LoopbackServer(unixSocketPath: socket)
            defer { server.stop() }
            server.route("/v1.43/containers/json") { _ in .json(#"[{"id": "c1", "image": "nginx:1.25"}]"#) }
            server.route("/v1.43/containers/c1/logs") { _ in
                .text("line one\nline two\n").chunked(chunkSize: 5)
            }
            let local = try #require(CurlTransport(unixSockets: ["docker": socket]))
            let engine = EngineAPI(baseURL: "http://docker/v1.43", transport: local)
            let containers = try await engine.containers()
            #expect(containers.map(\.image) == ["nginx:1.25"])
            var lines: [String] = []
            for try await line in engine.logs(of: "c1").lines { lines.append(line) }
            #expect(lines == ["line one", "line two"])

            let tls = TLSOptions(
                clientCertificate: URL(fileURLWithPath: "/etc/service/client.pem"),
                clientKey: URL(fileURLWithPath: "/etc/service/client.key"))
            let proxy = HTTPProxy(
                url: try #require(URL(string: "http://proxy.internal:3128")), username: "svc",
                password: "secret")
            let secure = CurlTransport(
                trustedCertificates: URL(fileURLWithPath: "/etc/service/ca.pem"), proxy: proxy, tls: tls)
            #expect(secure != nil)
        }
    #endif
}
