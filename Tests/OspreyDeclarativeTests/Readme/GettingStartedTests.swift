import Foundation
import Osprey
import OspreyTesting
import Testing

/// The Papyrus README's opening snippets, verbatim but for the base URL.
enum GettingStarted {
    @API
    @Authorization(.bearer("<my-auth-token>"))
    protocol Users {
        @GET("/user")
        func getUser() async throws -> User

        @POST("/user")
        func createUser(email: String, password: String) async throws -> User

        @GET("/users/:username/todos")
        func getTodos(username: String) async throws -> [Todo]
    }
}

@Suite("Papyrus README: getting started")
struct GettingStartedTests {
    @Test("the three requirements go out as described, with the bearer token, and decode")
    func users() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/user") { _ in .json(#"{"name": "josh"}"#) }
        server.route("POST", "/user") { request in .json(#"{"name": "created"}"#) }
        server.route("GET", "/users/:username/todos") { request in
            .json(#"[{"name": "\#(request.pathParameters["username"]!)", "isDone": false, "tags": []}]"#)
        }

        let provider = Provider(baseURL: server.baseURL.absoluteString + "/")
        let users: GettingStarted.Users = GettingStarted.UsersAPI(provider: provider)
        let todos = try await users.getTodos(username: "joshuawright11")
        #expect(todos == [Todo(name: "joshuawright11", isDone: false, tags: [])])
        #expect(try await users.getUser() == User(name: "josh"))
        #expect(try await users.createUser(email: "a@b.c", password: "p w") == User(name: "created"))

        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "GET", "POST"])
        #expect(requests.map(\.target) == ["/users/joshuawright11/todos", "/user", "/user"])
        #expect(requests.allSatisfy { $0.value(forHeader: "Authorization") == "Bearer <my-auth-token>" })
        #expect(requests[2].value(forHeader: "Content-Type") == "application/json")
        #expect(requests[2].bodyText == #"{"email":"a@b.c","password":"p w"}"#)
    }

    @Test("a path value is one encoded segment, whatever it contains")
    func pathValueEncoding() async throws {
        let server = try makeServer(answering: "[]")
        defer { server.stop() }
        let users = GettingStarted.UsersAPI(provider: server.provider)
        _ = try await users.getTodos(username: "../a?b#c d/é")
        #expect(server.onlyRequest?.target == "/users/..%2Fa%3Fb%23c%20d%2F%C3%A9/todos")
    }
}
