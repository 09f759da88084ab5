import Foundation
import Osprey
import OspreyTesting

// osprey-demo: an API client written the Osprey way, talking to a scripted loopback server
// (no internet needed). Run it with `swift run osprey-demo`.

struct Repository: Codable, Sendable {
    var name: String
    var stars: Int
}

struct ServerMessage: Decodable, Error, Sendable {
    var message: String
}

/// Turns `{"message": …}` error bodies into typed errors.
final class DemoParser: JSONParser {
    override func getError(from data: Data, response: URLResponse?) -> (any Error)? {
        try? decoder.decode(ServerMessage.self, from: data)
    }
}

final class RepositoriesAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    init(baseURL: String) {
        self.baseURL = baseURL
        super.init(responseParser: DemoParser())
    }

    func repositories(of user: String) -> Promise<[Repository]> {
        request(route: get(endpoint: "/users/\(user)/repos"), parameters: URLParameters(["sort": "stars"]))
    }

    func create(_ repository: Repository, for user: String) -> Promise<Repository> {
        request(route: post(endpoint: "/users/\(user)/repos"), parameters: JSONParameters(repository))
    }

    func status() -> Promise<String> {
        request(route: get(endpoint: "/status"))
    }

    func slowSearch(_ query: String) -> Promise<String> {
        request(route: get(endpoint: "/search"), parameters: URLParameters(["q": query], timeout: 0.5))
    }
}

// The server: what a real API would answer.
let server = try LoopbackServer()
defer { server.stop() }
server.route("GET", "/users/:user/repos") { request in
    guard request.pathParameters["user"] == "osprey" else {
        return .json(#"{"message": "no such user"}"#, status: 404)
    }
    return .json(#"[{"name": "osprey", "stars": 42}, {"name": "promises", "stars": 7}]"#)
}
server.route("POST", "/users/:user/repos") { .json($0.body, status: 201) }
server.route("GET", "/search") { _ in .text("too late").delayingHead(by: 3) }
// Busy the first time it is asked, fine afterwards.
server.route("GET", "/status") { _ in
    server.requests.filter { $0.path == "/status" }.count == 1
        ? .text("busy", status: 503) : .text("all good")
}

let api = RepositoriesAPI(baseURL: server.baseURL.absoluteString)

func show(_ title: String, _ body: () async throws -> String) async {
    do {
        print("\(title): \(try await body())")
    } catch {
        print("\(title): \(error)")
    }
}

await show("GET repositories of osprey") {
    try await api.repositories(of: "osprey").value.map { "\($0.name) (\($0.stars)★)" }.joined(separator: ", ")
}
await show("POST a new repository") {
    try await api.create(Repository(name: "demo", stars: 0), for: "osprey").value.name
}
await show("GET repositories of a user that does not exist") {
    do {
        _ = try await api.repositories(of: "../nobody?").value
        return "unexpected success"
    } catch let error as APIError {
        let message = (error.underlyingError as? ServerMessage)?.message ?? "?"
        return "status \(error.statusCode ?? 0), server says \"\(message)\""
    }
}
await show("A flaky endpoint, retried, with a LoggingMonitor") {
    let resilient = RepositoriesAPI(baseURL: server.baseURL.absoluteString)
    resilient.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0.1)
    resilient.configuration.monitors = [LoggingMonitor { print("    log: \($0)") }]
    return try await resilient.status().value
}
await show("A search with a 0.5 s timeout against a 3 s server") {
    _ = try await api.slowSearch("swift").value
    return "unexpected success"
}
await show("A request cancelled while in flight") {
    let search = api.slowSearch("cancel me")
    search.cancel()
    _ = try await search.value
    return "unexpected success"
}
print("\nWhat the server received:")
for request in server.requests {
    print("  \(request.method) \(request.target)")
}
