import Foundation
import Osprey
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The snippets of the "Declaring an API as a protocol" article's section "Create the client",
/// as written there, with the base URL pointed at the loopback server.
enum DeclaringAnAPIArticle {
    struct User: Codable, Sendable, Equatable {
        var name: String
    }

    struct Todo: Codable, Sendable, Equatable {
        var title: String
    }

    @API
    @Authorization(.bearer("<my-auth-token>"))
    protocol Users {
        @GET("/user")
        func getUser() async throws -> User

        @POST("/user")
        func createUser(email: String, password: String) async throws -> User

        @GET("/users/:username/todos")
        func getTodos(username: String) async throws -> [Todo]

        @DELETE("/users/:username/todos/:id")
        func deleteTodo(username: String, id: Int) -> Promise<Void>
    }

    struct Envelope<Wrapped: Decodable>: Decodable {
        var data: Wrapped
    }

    final class EnvelopeParser: JSONParser {
        override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
            try decoder.decode(Envelope<T>.self, from: data).data
        }
    }
}

@Suite("Articles: declaring an API, its initialisers and an envelope parser")
struct DeclaringAnAPIArticleTests {
    typealias Article = DeclaringAnAPIArticle

    @Test("init(provider:responseParser:) with an envelope parser, the provider's configuration and modifier")
    func providerAndParser() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let attempts = Locked(0)
        server.route("GET", "/users/:username/todos") { request in
            let first = attempts.withLock { attempts in
                attempts += 1
                return attempts == 1
            }
            // The first attempt is refused, so that the provider's retry policy shows.
            if first { return .text("busy", status: 503) }
            return .json(#"{"data": [{"title": "reply to \#(request.pathParameters["username"]!)"}]}"#)
        }
        server.route("DELETE", "/users/:username/todos/:id") { _ in LoopbackServer.Response(status: 204) }

        var configuration = APIConfiguration()
        configuration.retryPolicy = StandardRetryPolicy()
        let wrapped = Provider(baseURL: server.baseURL.absoluteString, configuration: configuration)
            .modifyRequests { (req: inout RequestBuilder) in
                req.addHeader("X-Client-Version", value: "1.2.3")
            }
        let api = Article.UsersAPI(provider: wrapped, responseParser: Article.EnvelopeParser())
        let deleted = Locked(false)
        _ = await api.deleteTodo(username: "joshuawright11", id: 1)
            .onSuccess { deleted.withLock { $0 = true } }
            .onError { error in Issue.record("\(error)") }
            .result
        #expect(deleted.withLock { $0 })

        let todos = try await api.getTodos(username: "ada")
        #expect(todos == [Article.Todo(title: "reply to ada")])
        #expect(attempts.withLock { $0 } == 2)
        let requests = server.requests
        #expect(requests.allSatisfy { $0.value(forHeader: "X-Client-Version") == "1.2.3" })
        #expect(requests.allSatisfy { $0.value(forHeader: "Authorization") == "Bearer <my-auth-token>" })
        #expect(requests.first?.target == "/users/joshuawright11/todos/1")
    }

    @Test("init(baseURL:responseParser:transport:configuration:): transport before configuration")
    func ospreyStyleInitialiser() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/user") { _ in .json(#"{"data": {"name": "ada"}}"#) }
        var configuration = APIConfiguration()
        configuration.headers["User-Agent"] = "todos/1.0"
        let api = Article.UsersAPI(
            baseURL: server.baseURL.absoluteString, responseParser: Article.EnvelopeParser(),
            transport: URLSessionTransport(), configuration: configuration)
        #expect(try await api.getUser() == Article.User(name: "ada"))
        #expect(server.requests.first?.value(forHeader: "User-Agent") == "todos/1.0")
    }
}
