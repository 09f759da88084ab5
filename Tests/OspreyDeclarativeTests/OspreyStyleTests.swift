import Foundation
import Osprey
import OspreyTesting
import Testing

/// Declarative APIs the Osprey way: promises, the Osprey-style initialiser, and every pipeline
/// feature applying to generated clients.
enum OspreyStyle {
    @API
    @Mock
    protocol Catalog {
        @GET("/products/:id")
        func product(id: Int) -> Promise<Post>

        @GET("/products")
        func products(page: Int?, tags: [String]) -> Promise<[Post]>

        @DELETE("/products/{id}")
        func remove(id: Int) -> Promise<Void>

        @GET("/products/:id/raw")
        func raw(id: Int) -> Promise<APIResponseless>

        @GET("/flaky")
        func flaky() async throws -> String

        @POST("/products")
        func create(name: String, completion: @escaping (Result<Post, Error>) -> Void)
    }

    /// A result type of the test's own (Decodable), to check generic results.
    struct APIResponseless: Decodable, Sendable, Equatable {
        var ok: Bool
    }
}

@Suite("Declarative APIs: promises and the pipeline")
struct OspreyStyleTests {
    @Test("requirements may return promises; nil arguments are left out")
    func promises() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/products/:id") { request in .json(#"{"id": \#(request.pathParameters["id"]!)}"#)
        }
        server.route("GET", "/products") { _ in .json(#"[{"id": 1}]"#) }
        server.route("DELETE", "/products/:id") { _ in LoopbackServer.Response(status: 204) }
        let catalog = OspreyStyle.CatalogAPI(baseURL: server.baseURL.absoluteString)
        #expect(try await catalog.product(id: 3).value == Post(id: 3))
        #expect(try await catalog.products(page: nil, tags: ["a", "b"]).value == [Post(id: 1)])
        #expect(try await catalog.products(page: 2, tags: []).value == [Post(id: 1)])
        try await catalog.remove(id: 9).value
        #expect(
            server.requests.map(\.target) == [
                "/products/3", "/products?tags%5B%5D=a&tags%5B%5D=b", "/products?page=2", "/products/9",
            ])
    }

    @Test("a cancelled promise cancels the request")
    func cancellation() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/products/:id") { _ in LoopbackServer.Response.json("{}").delayingHead(by: 3600) }
        let catalog = OspreyStyle.CatalogAPI(baseURL: server.baseURL.absoluteString)
        // Only the cancellation may end it: a busy runner can hold the test past the default
        // one-minute idle timeout before it gets to cancel.
        catalog.configuration.timeout = 600
        let promise = catalog.product(id: 1)
        #expect(await server.waitForRequests(count: 1))
        promise.cancel()
        let result = await promise.result
        #expect(result.isCancellation)
        #expect(await server.waitUntilNoOpenConnections())
    }

    @Test("the configuration applies: default headers, a retry policy, monitors, a parser of your own")
    func pipeline() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let attempts = Locked(0)
        server.route("/flaky") { _ in
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            return attempt < 3 ? .text("busy", status: 503) : .text("ok")
        }
        var configuration = APIConfiguration()
        configuration.headers["User-Agent"] = "osprey-tests"
        configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        let events = Locked<[String]>([])
        configuration.monitors = [RecordingMonitor(events: events)]
        let catalog = OspreyStyle.CatalogAPI(
            baseURL: server.baseURL.absoluteString, configuration: configuration)
        #expect(try await catalog.flaky() == "ok")
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.value(forHeader: "User-Agent") == "osprey-tests" })
        #expect(events.withLock { $0 }.last == "succeeded")
    }

    @Test("@Mock answers promises and callbacks with the handlers set, and fails without one")
    func mocks() async throws {
        let mock = OspreyStyle.CatalogMock()
        mock.mockProduct { id in Post(id: id * 10) }
        #expect(try await mock.product(id: 2).value == Post(id: 20))
        await #expect(throws: MockError.notMocked("products(page:tags:)")) {
            try await mock.products(page: nil, tags: []).value
        }
        mock.mockCreate { name in Post(id: name.count) }
        let created = await withCheckedContinuation { done in
            mock.create(name: "four") { done.resume(returning: $0) }
        }
        #expect(try created.get() == Post(id: 4))
    }
}

/// Records the kind of each event it hears.
struct RecordingMonitor: EventMonitor {
    let events: Locked<[String]>

    func receive(_ event: APIEvent) {
        events.withLock { $0.append("\(event.kind)") }
    }
}

extension Result {
    var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
