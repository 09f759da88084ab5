import Foundation
import Osprey
import OspreyTesting
import Testing

/// The Papyrus README's "Advanced" snippets.
enum Advanced {
    @API
    protocol Posts {
        @GET("/posts/:postId")
        func getPost(id postId: Int) async throws -> Post
    }

    struct TodoItem: Codable, Sendable, Equatable {
        var itemName: String
        var dueDay: Int
    }

    @API
    @KeyMapping(.snakeCase)
    protocol Todos {
        @POST("/todos")
        func createTodo(todoName: String, isDone: Bool, dueDay: Query<Int>) async throws -> TodoItem

        @PUT("/todos/1")
        func replaceTodo(item: Body<TodoItem>) async throws -> TodoItem
    }

    @API
    protocol Plaid {
        @POST("/accounts/get")
        func getAccounts(accessToken: String) async throws
    }

    @API
    protocol Users {
        @GET("/users")
        func getUsers() async throws -> [User]
    }

    @API
    protocol Callbacks {
        // equivalent to `func getUser() async throws -> User`
        @GET("/user")
        func getUser(callback: @escaping (Result<User, Error>) -> Void)

        // equivalent to `func createUser(email: String, password: String) async throws`
        @POST("/user")
        func createUser(email: String, password: String, completion: @escaping (Result<Void, Error>) -> Void)

        // equivalent to `func getResponse() async throws -> Response`
        @GET("/response")
        func getResponse(completion: @escaping (Response) -> Void)
    }

    struct MyRequestModifier: RequestModifier {
        func modify(req: inout RequestBuilder) throws {
            req.addHeader("X-Modified", value: "yes")
        }
    }

    struct MyInterceptor: Interceptor {
        let seen: Locked<[String]>

        func intercept(req: InterceptedRequest, next: Interceptor.Next) async throws -> Response {
            seen.withLock {
                $0.append("\(req.method) \(req.url!.relativePath) \(req.headers["X-Modified"] ?? "-")")
            }
            return try await next(req)
        }
    }
}

/// Access control: a public protocol gets public generated types.
@API
@Mock
public protocol PublicGreetings {
    @GET("/greeting")
    func greeting() async throws -> String
}

@Suite("Papyrus README: advanced")
struct AdvancedTests {
    @Test("a second parameter label names the key")
    func parameterLabels() async throws {
        let server = try makeServer(answering: #"{"id": 7}"#)
        defer { server.stop() }
        let post = try await Advanced.PostsAPI(provider: server.provider).getPost(id: 7)
        #expect(post == Post(id: 7))
        #expect(server.onlyRequest?.target == "/posts/7")
    }

    @Test("@KeyMapping(.snakeCase) maps query, field and body keys and decodes responses")
    func keyMapping() async throws {
        let server = try makeServer(answering: #"{"item_name": "milk", "due_day": 3}"#)
        defer { server.stop() }
        let todos = Advanced.TodosAPI(provider: server.provider)
        let created = try await todos.createTodo(todoName: "milk", isDone: false, dueDay: 3)
        #expect(created == Advanced.TodoItem(itemName: "milk", dueDay: 3))
        _ = try await todos.replaceTodo(item: Advanced.TodoItem(itemName: "eggs", dueDay: 4))
        let requests = server.requests
        #expect(requests[0].target == "/todos?due_day=3")
        #expect(requests[0].bodyText == #"{"is_done":false,"todo_name":"milk"}"#)
        #expect(requests[1].bodyText == #"{"due_day":4,"item_name":"eggs"}"#)
    }

    @Test("a public protocol's API and mock are public, and usable from another module's point of view")
    func accessControl() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/greeting") { _ in .text("hello") }
        let greetings: any PublicGreetings = PublicGreetingsAPI(provider: server.provider)
        #expect(try await greetings.greeting() == "hello")
        let mock = PublicGreetingsMock()
        mock.mockGreeting { "hi" }
        #expect(try await mock.greeting() == "hi")
    }

    @Test("modifyRequests adds fields to every request")
    func requestModifiers() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let provider = Provider(baseURL: server.baseURL.absoluteString)
            .modifyRequests { (req: inout RequestBuilder) in
                req.addField("client_id", value: "<client-id>")
                req.addField("secret", value: "<secret>")
            }
        let plaid: Advanced.Plaid = Advanced.PlaidAPI(provider: provider)
        try await plaid.getAccounts(accessToken: "token")
        let body = try #require(try server.lastJSONBody() as? [String: String])
        #expect(body == ["accessToken": "token", "client_id": "<client-id>", "secret": "<secret>"])
    }

    @Test("intercept sees the request and the response, and times it")
    func interceptors() async throws {
        let server = try makeServer(answering: "[]")
        defer { server.stop() }
        let lines = Locked<[String]>([])
        let provider = Provider(baseURL: server.baseURL.absoluteString)
            .intercept { req, next in
                let start = Date()
                let res = try await next(req)
                let elapsedTime = String(format: "%.2fs", Date().timeIntervalSince(start))
                // Got a 200 for GET /users after 0.45s
                print(
                    "Got a \(res.statusCode!) for \(req.method) \(req.url!.relativePath) after \(elapsedTime)"
                )
                lines.withLock {
                    $0.append("Got a \(res.statusCode!) for \(req.method) \(req.url!.relativePath)")
                }
                return res
            }
        _ = try await Advanced.UsersAPI(provider: provider).getUsers()
        #expect(lines.withLock { $0 } == ["Got a 200 for GET /users"])
    }

    @Test("RequestModifier and Interceptor types, passed to the provider's initialiser")
    func modifierAndInterceptorTypes() async throws {
        let server = try makeServer(answering: "[]")
        defer { server.stop() }
        let seen = Locked<[String]>([])
        let provider = Provider(
            baseURL: server.baseURL.absoluteString, modifiers: [Advanced.MyRequestModifier()],
            interceptors: [Advanced.MyInterceptor(seen: seen)])
        _ = try await Advanced.UsersAPI(provider: provider).getUsers()
        #expect(seen.withLock { $0 } == ["GET /users yes"])
        #expect(server.onlyRequest?.value(forHeader: "X-Modified") == "yes")
    }

    @Test("callback requirements deliver a Result, or a Response")
    func callbacks() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/user") { _ in .json(#"{"name": "josh"}"#) }
        server.route("POST", "/user") { _ in LoopbackServer.Response(status: 201) }
        server.route("GET", "/response") { _ in .text("teapot", status: 418) }
        let api = Advanced.CallbacksAPI(provider: server.provider)

        let user = await withCheckedContinuation { done in api.getUser { done.resume(returning: $0) } }
        #expect(try user.get() == User(name: "josh"))
        let created = await withCheckedContinuation { done in
            api.createUser(email: "a@b.c", password: "pw") { done.resume(returning: $0) }
        }
        #expect(throws: Never.self) { try created.get() }
        let response = await withCheckedContinuation { done in api.getResponse { done.resume(returning: $0) }
        }
        #expect(response.statusCode == 418)
        #expect(response.body == Data("teapot".utf8))
        #expect((response.error as? APIError)?.statusCode == 418)
    }
}
