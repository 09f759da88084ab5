import Foundation
import Osprey
import OspreyTesting

// osprey-example-declarative: a client declared as a protocol with `@API`, tested with the mock
// `@Mock` generates. It talks to a scripted loopback server (no internet needed):
// `swift run osprey-example-declarative`.

struct Repository: Codable, Sendable, Equatable {
    var name: String
    var stargazersCount: Int
}

struct NewRepository: Codable, Sendable {
    var name: String
    var isPrivate: Bool
}

@API
@Mock
@KeyMapping(.snakeCase)
@Headers(["Accept": "application/vnd.github+json"])
protocol GitHub {
    /// The user's repositories, a page at a time.
    @GET("/users/:username/repos")
    func repositories(username: String, page: Int?, perPage: Query<Int>) async throws -> [Repository]

    /// Creates a repository for the authenticated user.
    @POST("/user/repos")
    func create(repository: Body<NewRepository>, token: Header<String>) async throws -> Repository

    /// Stars a repository (no body in the answer).
    @PUT("/user/starred/:owner/:repo")
    func star(owner: String, repo: String) -> Promise<Void>
}

/// What the app does with the API; it only knows the protocol.
struct StarCounter {
    let github: any GitHub

    func totalStars(of username: String) async throws -> Int {
        try await github.repositories(username: username, page: nil, perPage: 100).reduce(0) {
            $0 + $1.stargazersCount
        }
    }
}

func check(_ condition: Bool, _ message: String) {
    guard !condition else { return }
    print("✗ \(message)")
    exit(1)
}

let server = try LoopbackServer()
defer { server.stop() }
server.route("GET", "/users/:username/repos") { request in
    .json(#"[{"name": "osprey", "stargazers_count": 42}, {"name": "promises", "stargazers_count": 7}]"#)
}
server.route("POST", "/user/repos") { _ in .json(#"{"name": "demo", "stargazers_count": 0}"#, status: 201) }
server.route("PUT", "/user/starred/:owner/:repo") { _ in LoopbackServer.Response(status: 204) }

// 1. The generated client, against the server.
let provider = Provider(baseURL: server.baseURL.absoluteString)
    .intercept { request, next in
        let response = try await next(request)
        print("  \(request.method) \(request.url!.relativePath) → \(response.statusCode!)")
        return response
    }
let github: any GitHub = GitHubAPI(provider: provider)

print("1. @API: a client from a protocol")
let stars = try await StarCounter(github: github).totalStars(of: "osprey")
print("  osprey has \(stars) stars")
check(stars == 49, "expected 49 stars, got \(stars)")
check(server.requests.last?.target == "/users/osprey/repos?per_page=100", "unexpected query")

let created = try await github.create(
    repository: NewRepository(name: "demo", isPrivate: true), token: "t0ken")
print("  created \(created.name)")
check(server.requests.last?.bodyText == #"{"is_private":true,"name":"demo"}"#, "unexpected body")
check(server.requests.last?.value(forHeader: "Token") == "t0ken", "missing header")

try await github.star(owner: "apple", repo: "swift").value
print("  starred apple/swift")

// 2. The generated mock, in place of the client.
print("2. @Mock: the same code against a mock")
let mock = GitHubMock()
mock.mockRepositories { username, page, perPage in
    check(username == "someone" && page == nil && perPage == 100, "unexpected arguments")
    return [Repository(name: "a", stargazersCount: 1), Repository(name: "b", stargazersCount: 2)]
}
let mocked = try await StarCounter(github: mock).totalStars(of: "someone")
print("  the mock's user has \(mocked) stars")
check(mocked == 3, "expected 3 stars from the mock")
do {
    try await mock.star(owner: "a", repo: "b").value
    check(false, "an unmocked requirement should fail")
} catch {
    print("  unmocked: \(error)")
}
print("✓ done")
