import Foundation
import GitHubClientExample
import Osprey
import OspreyTesting
import Testing

@Suite("GitHubAPI: pages followed through Link headers, GitHub's error bodies, a JSON POST")
struct GitHubAPITests {
    static let baseURL = "https://api.github.example"

    /// A page of repositories as GitHub writes it.
    static func page(_ names: String..., next: String? = nil) -> MockTransport.Reply {
        let items = names.map { #"{"name": "\#($0)", "full_name": "octocat/\#($0)", "stargazers_count": 1}"# }
        let reply = MockTransport.Reply.json("[\(items.joined(separator: ", "))]")
        return next.map {
            reply.adding(header: "Link", #"<\#($0)>; rel="next", </user/1/repos?page=9>; rel="last""#)
        }
            ?? reply
    }

    @Test("allRepositories follows each next link, relative ones included, until a page has none")
    func followsNextLinks() async throws {
        let mock = MockTransport()
        mock.route("GET", "/users/:user/repos") { _ in
            Self.page("a", "b", next: "\(Self.baseURL)/user/1/repos?page=2")
        }
        mock.route("GET", "/user/:id/repos") { request in
            request.queryItems.contains(URLQueryItem(name: "page", value: "2"))
                ? Self.page("c", "d", next: "/user/1/repos?page=3") : Self.page("e")
        }
        let api = GitHubAPI(baseURL: Self.baseURL, token: "t0ken", transport: mock)

        let repositories = try await api.allRepositories(of: "octocat", perPage: 2).value
        #expect(repositories.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(repositories.first == Repository(name: "a", fullName: "octocat/a", stargazersCount: 1))
        #expect(
            mock.requests.map(\.target) == [
                "/users/octocat/repos?per_page=2", "/user/1/repos?page=2", "/user/1/repos?page=3",
            ])
        #expect(mock.requests.allSatisfy { $0.value(forHeader: "Authorization") == "Bearer t0ken" })
    }

    @Test("a next link to another origin fails the list instead of taking the token there")
    func refusesAnotherOrigin() async throws {
        let mock = MockTransport()
        // Were the link followed, this would answer it and the list would succeed (first: the
        // newest matching route wins).
        mock.route(nil, "/*rest") { _ in .json("[]") }
        mock.route("GET", "/users/:user/repos") { _ in
            Self.page("a", next: "https://elsewhere.example/steal")
        }
        let api = GitHubAPI(baseURL: Self.baseURL, token: "t0ken", transport: mock)

        let result = await api.allRepositories(of: "octocat").result
        guard case .failure(APIError.invalidRequest) = result else {
            Issue.record("expected invalidRequest, got \(result)")
            return
        }
        #expect(mock.requests.count == 1)
    }

    @Test("links that go round in circles stop at maximumPages")
    func stopsCircles() async throws {
        let mock = MockTransport()
        mock.route("GET", "/users/:user/repos") { _ in Self.page("a", next: "/users/octocat/repos") }
        let api = GitHubAPI(baseURL: Self.baseURL, transport: mock)

        let result = await api.allRepositories(of: "octocat", maximumPages: 3).result
        guard case .failure(let error as GitHubAPI.TooManyPages) = result else {
            Issue.record("expected TooManyPages, got \(result)")
            return
        }
        #expect(error.limit == 3)
        #expect(mock.requests.count == 3)
    }

    @Test("cancelling the list cancels the page in flight")
    func cancelsThePageInFlight() async throws {
        let transport = ObservedTransport()
        transport.mock.route("GET", "/users/:user/repos") { _ in Self.page("a", next: "/user/1/repos?page=2")
        }
        transport.mock.route("GET", "/user/:id/repos") { _ in .never }
        let api = GitHubAPI(baseURL: Self.baseURL, transport: transport)

        let list = api.allRepositories(of: "octocat")
        try await transport.sent(2).value
        list.cancel()
        try await transport.cancelled(2).value
        #expect(list.isCancelled)
    }

    @Test(
        "GitHub's error body becomes the failure's GitHubError; a body of another kind leaves only the status"
    )
    func errorBodies() async throws {
        let mock = MockTransport()
        mock.route("GET", "/users/nobody/repos") { _ in
            .json(
                #"{"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}"#,
                status: 404)
        }
        mock.route("GET", "/users/octocat/repos") { _ in .text("<html>Bad gateway</html>", status: 502) }
        let api = GitHubAPI(baseURL: Self.baseURL, transport: mock)

        let notFound = await api.repositories(of: "nobody").result
        guard case .failure(let error as APIError) = notFound else {
            Issue.record("expected an APIError, got \(notFound)")
            return
        }
        #expect(error.statusCode == 404)
        let refusal = error.underlyingError as? GitHubError
        #expect(refusal?.message == "Not Found")
        #expect(refusal?.documentationURL == URL(string: "https://docs.github.com/rest"))

        let badGateway = await api.repositories(of: "octocat").result
        guard case .failure(let gatewayError as APIError) = badGateway else {
            Issue.record("expected an APIError, got \(badGateway)")
            return
        }
        #expect(gatewayError.statusCode == 502)
        #expect(gatewayError.underlyingError == nil)
    }

    @Test("a refused field of a 422 is in the GitHubError and its description")
    func validationFailed() async throws {
        let mock = MockTransport()
        mock.route("POST", "/user/repos") { _ in
            .json(
                #"{"message": "Validation Failed", "errors": [{"resource": "Repository", "code": "custom", "field": "name", "message": "name already exists on this account"}]}"#,
                status: 422)
        }
        let api = GitHubAPI(baseURL: Self.baseURL, token: "t0ken", transport: mock)
        let result = await api.createRepository(NewRepository(name: "taken")).result
        guard case .failure(let error as APIError) = result,
            let refusal = error.underlyingError as? GitHubError
        else {
            Issue.record("expected a GitHubError, got \(result)")
            return
        }
        #expect(refusal.errors?.map(\.field) == ["name"])
        #expect("\(refusal)" == "Validation Failed (name: name already exists on this account)")
    }

    @Test("createRepository posts GitHub's JSON keys with the token, media type and API version")
    func createsRepository() async throws {
        let mock = MockTransport()
        mock.route("POST", "/user/repos") { _ in
            .json(#"{"name": "new", "full_name": "octocat/new", "stargazers_count": 0}"#, status: 201)
        }
        let api = GitHubAPI(baseURL: Self.baseURL, token: "t0ken", transport: mock)

        let created = try await api.createRepository(
            NewRepository(name: "new", description: "A test", isPrivate: true)
        )
        .value
        #expect(created == Repository(name: "new", fullName: "octocat/new", stargazersCount: 0))
        let request = try #require(mock.requests.first)
        #expect(request.bodyText == #"{"description":"A test","name":"new","private":true}"#)
        #expect(request.value(forHeader: "Authorization") == "Bearer t0ken")
        #expect(request.value(forHeader: "Accept") == "application/vnd.github+json")
        #expect(request.value(forHeader: "X-GitHub-Api-Version") == "2022-11-28")
    }
}
