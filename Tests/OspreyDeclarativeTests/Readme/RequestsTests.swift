import Foundation
import Osprey
import OspreyTesting
import Testing

/// The Papyrus README's "Requests" snippets, each in a protocol of its own.
enum Requests {
    @API
    protocol Accounts {
        @POST("/accounts/transfers")
        func transfer() async throws
    }

    @API
    protocol Repositories {
        @GET("/users/:username/repos/:id")
        func getRepository(username: String, id: Int) async throws -> [Repository]
    }

    @API
    protocol Transactions {
        @GET("/transactions")  // GET /transactions?merchant=...
        func getTransactions(merchant: String) async throws -> [Transaction]

        @POST("/cards")  // POST /cards?username=...
        func fetchCards(username: Query<String>) async throws -> [Card]

        @GET("/transactions?merchant=Apple")
        func appleTransactions() async throws -> [Transaction]
    }

    @API
    protocol Accounting {
        @GET("/accounts")
        func getRepository(customHeader: Header<String>) async throws
    }

    @API
    protocol CachedUsers {
        @Headers(["Cache-Control": "max-age=86400"])
        @GET("/user")
        func getUser() async throws -> User
    }

    @API
    @Headers(["X-Client-Version": "1.2.3"])
    protocol Users {
        @GET("/user")
        func getUser() async throws -> User
    }

    @API
    @Authorization(.basic(username: "joshuawright11", password: "P@ssw0rd"))
    protocol BasicUsers {
        @GET("/user")
        func getUser() async throws -> User
    }

    @API
    protocol Todos {
        @POST("/todo")
        func createTodo(name: String, isDone: Bool, tags: [String]) async throws
    }

    @API
    protocol ExplicitTodos {
        @POST("/todo")
        func createTodo(name: Field<String>, isDone: Field<Bool>, tags: Field<[String]>) async throws
    }

    @API
    protocol WholeTodos {
        @POST("/todo")
        func createTodo(todo: Body<Todo>) async throws
    }

    @API
    protocol DatedUsers {
        @JSON(encoder: .iso8601)
        @POST("/user")
        func createUser(username: String, password: String) async throws
    }

    @API
    protocol FormTodos {
        @URLForm
        @POST("/todo")
        func createTodo(name: String, isDone: Bool, tags: [String]) async throws
    }

    @API
    protocol Attachments {
        @Multipart
        @POST("/attachments")
        func uploadAttachments(file1: Part, file2: Part) async throws
    }

    @API
    @URLForm
    protocol GlobalFormTodos {
        @POST("/todo")
        func createTodo(name: String, isDone: Bool, tags: [String]) async throws

        @PATCH("/todo/:id")
        func updateTodo(id: Int, name: String, isDone: Bool, tags: [String]) async throws
    }

    @API
    @JSON(encoder: .iso8601)
    protocol DatedTodos {
        @POST("/todo")
        func createTodo(name: String, due: Date) async throws
    }

    @API
    protocol Methods {
        @GET("/m") func get() async throws
        @POST("/m") func post() async throws
        @PUT("/m") func put() async throws
        @PATCH("/m") func patch() async throws
        @DELETE("/m") func delete() async throws
        @OPTIONS("/m") func options() async throws
        @HEAD("/m") func head() async throws
        @TRACE("/m") func trace() async throws
        @HTTP("/m", method: "PURGE") func purge() async throws
    }
}

@Suite("Papyrus README: requests")
struct RequestsTests {
    @Test("method and path")
    func methodAndPath() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.AccountsAPI(provider: server.provider).transfer()
        #expect(server.onlyRequest?.method == "POST")
        #expect(server.onlyRequest?.target == "/accounts/transfers")
    }

    @Test("every method attribute, and @HTTP with a method of its own")
    func everyMethod() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let api = Requests.MethodsAPI(provider: server.provider)
        try await api.get()
        try await api.post()
        try await api.put()
        try await api.patch()
        try await api.delete()
        try await api.options()
        try await api.head()
        try await api.trace()
        try await api.purge()
        #expect(
            server.requests.map(\.method) == [
                "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PURGE",
            ])
        #expect(server.requests.allSatisfy { $0.target == "/m" })
    }

    @Test("path parameters are replaced by the matching arguments")
    func pathParameters() async throws {
        let server = try makeServer(answering: #"[{"name": "osprey"}]"#)
        defer { server.stop() }
        let repositories = try await Requests.RepositoriesAPI(provider: server.provider)
            .getRepository(username: "joshuawright11", id: 42)
        #expect(repositories == [Repository(name: "osprey")])
        #expect(server.onlyRequest?.target == "/users/joshuawright11/repos/42")
    }

    @Test("other arguments of a GET are query items; Query<T> makes one on a POST; a static query stays")
    func queries() async throws {
        let server = try makeServer(answering: "[]")
        defer { server.stop() }
        let api = Requests.TransactionsAPI(provider: server.provider)
        _ = try await api.getTransactions(merchant: "Ben & Jerry's")
        _ = try await api.fetchCards(username: "josh")
        _ = try await api.appleTransactions()
        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "POST", "GET"])
        #expect(requests[0].target == "/transactions?merchant=Ben%20%26%20Jerry%27s")
        #expect(requests[1].target == "/cards?username=josh")
        #expect(requests[1].body.isEmpty)
        #expect(requests[2].target == "/transactions?merchant=Apple")
    }

    @Test("Header<T> is named in Capital-Kebab-Case")
    func variableHeader() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.AccountingAPI(provider: server.provider).getRepository(customHeader: "yes")
        #expect(server.onlyRequest?.value(forHeader: "Custom-Header") == "yes")
        #expect(server.onlyRequest?.headers.contains { $0.name == "Custom-Header" } == true)
    }

    @Test("static headers on a function, on a protocol; a Basic authorization header")
    func staticHeaders() async throws {
        let server = try makeServer(answering: #"{"name": "josh"}"#)
        defer { server.stop() }
        _ = try await Requests.CachedUsersAPI(provider: server.provider).getUser()
        _ = try await Requests.UsersAPI(provider: server.provider).getUser()
        _ = try await Requests.BasicUsersAPI(provider: server.provider).getUser()
        let requests = server.requests
        #expect(requests[0].value(forHeader: "Cache-Control") == "max-age=86400")
        #expect(requests[1].value(forHeader: "X-Client-Version") == "1.2.3")
        let expected = "Basic " + Data("joshuawright11:P@ssw0rd".utf8).base64EncodedString()
        #expect(requests[2].value(forHeader: "Authorization") == expected)
    }

    @Test("arguments of a POST are JSON body fields, inferred or marked Field<T>")
    func fields() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.TodosAPI(provider: server.provider).createTodo(
            name: "milk", isDone: false, tags: ["a", "b"])
        try await Requests.ExplicitTodosAPI(provider: server.provider).createTodo(
            name: "milk", isDone: false, tags: ["a", "b"])
        for request in server.requests {
            #expect(request.value(forHeader: "Content-Type") == "application/json")
            #expect(request.bodyText == #"{"isDone":false,"name":"milk","tags":["a","b"]}"#)
        }
    }

    @Test("Body<T> is the whole body")
    func body() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.WholeTodosAPI(provider: server.provider).createTodo(
            todo: Todo(name: "milk", isDone: true, tags: []))
        #expect(server.onlyRequest?.bodyText == #"{"isDone":true,"name":"milk","tags":[]}"#)
    }

    @Test("@JSON(encoder:) on a function and on a protocol")
    func customEncoder() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.DatedUsersAPI(provider: server.provider).createUser(
            username: "josh", password: "pw")
        try await Requests.DatedTodosAPI(provider: server.provider).createTodo(
            name: "milk", due: Date(timeIntervalSince1970: 0))
        let bodies = try server.requests.map {
            try JSONSerialization.jsonObject(with: $0.body) as? [String: String]
        }
        #expect(bodies[0] == ["username": "josh", "password": "pw"])
        #expect(bodies[1] == ["name": "milk", "due": "1970-01-01T00:00:00Z"])
    }

    @Test("@URLForm on a function and on a protocol")
    func urlForm() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.FormTodosAPI(provider: server.provider).createTodo(
            name: "a b&c", isDone: true, tags: ["x"])
        let global = Requests.GlobalFormTodosAPI(provider: server.provider)
        try await global.createTodo(name: "milk", isDone: false, tags: [])
        try await global.updateTodo(id: 7, name: "milk", isDone: true, tags: ["x", "y"])
        let requests = server.requests
        #expect(
            requests.allSatisfy { $0.value(forHeader: "Content-Type") == "application/x-www-form-urlencoded" }
        )
        #expect(requests[0].bodyText == "isDone=true&name=a%20b%26c&tags%5B%5D=x")
        #expect(requests[1].bodyText == "isDone=false&name=milk")
        #expect(requests[2].method == "PATCH")
        #expect(requests[2].target == "/todo/7")
        #expect(requests[2].bodyText == "isDone=true&name=milk&tags%5B%5D=x&tags%5B%5D=y")
    }

    @Test("@Multipart sends each Part, named after its parameter")
    func multipart() async throws {
        let server = try makeServer()
        defer { server.stop() }
        try await Requests.AttachmentsAPI(provider: server.provider).uploadAttachments(
            file1: Part(name: "", data: Data("one".utf8), filename: "1.txt", mimeType: .plainText),
            file2: Part(name: "custom", data: Data("two".utf8)))
        let request = try #require(server.onlyRequest)
        let contentType = try #require(request.value(forHeader: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        let expected =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file1\"; filename=\"1.txt\"\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n\r\none\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"custom\"\r\n\r\ntwo\r\n--\(boundary)--\r\n"
        #expect(request.bodyText == expected)
    }
}
