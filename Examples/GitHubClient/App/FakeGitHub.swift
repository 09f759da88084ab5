import Foundation
import OspreyTesting

/// A loopback server that answers like GitHub's REST API for the calls the example makes, so
/// that it runs without the internet: repository lists paginated with `Link` headers that point
/// at `/user/<id>/repos` (as GitHub's do: follow the links, do not build page URLs), `404 Not
/// Found`, `401 Requires authentication` and `422 Validation Failed` with GitHub's error bodies.
struct FakeGitHub {
    /// The token the server accepts, as octocat's.
    static let token = "ghp_example-token"

    /// The users the server knows: their numeric id (used in pagination links) and repositories.
    static let users: [String: (id: Int, repositories: [String])] = [
        "octocat": (
            583_231,
            [
                "boysenberry-repo-1", "git-consortium", "Hello-World", "linguist", "octocat.github.io",
                "Spoon-Knife", "test-repo1",
            ]
        )
    ]

    let server: LoopbackServer

    /// Starts the server on 127.0.0.1 and an ephemeral port.
    init() throws {
        let server = try LoopbackServer()
        self.server = server
        for pattern in ["/users/:user/repos", "/user/:id/repos"] {
            server.route("GET", pattern) { request in try Self.listRepositories(request, server: server) }
        }
        server.route("POST", "/user/repos") { request in try Self.createRepository(request) }
    }

    /// The URL to give the client.
    var baseURL: String { server.baseURL.absoluteString }

    /// Stops the server.
    func stop() {
        server.stop()
    }

    private static func listRepositories(_ request: LoopbackServer.Request, server: LoopbackServer) throws
        -> LoopbackServer.Response
    {
        let found = users.first {
            request.pathParameters["user"] == $0.key || request.pathParameters["id"] == String($0.value.id)
        }
        guard let (login, user) = found.map({ ($0.key, $0.value) }) else {
            return error(404, "Not Found", documentation: "repos/repos#list-repositories-for-a-user")
        }
        let query = Dictionary(request.queryItems.map { ($0.name, $0.value ?? "") }) { _, last in last }
        let perPage = min(100, max(1, Int(query["per_page"] ?? "") ?? 30))
        let page = max(1, Int(query["page"] ?? "") ?? 1)
        let pageCount = max(1, (user.repositories.count + perPage - 1) / perPage)
        let names = user.repositories.dropFirst((page - 1) * perPage).prefix(perPage)
        let body = names.map {
            // Any number of stars will do: the name's length.
            ServedRepository(name: $0, fullName: "\(login)/\($0)", stargazersCount: $0.count)
        }
        let response = try LoopbackServer.Response.json(encoding: body)

        func link(_ page: Int, _ relation: String) -> String {
            "<\(server.url("/user/\(user.id)/repos?per_page=\(perPage)&page=\(page)"))>; rel=\"\(relation)\""
        }
        // GitHub's order: prev, next, last, first; none of them on a single page.
        var links: [String] = []
        if page > 1 { links.append(link(page - 1, "prev")) }
        if page < pageCount { links += [link(page + 1, "next"), link(pageCount, "last")] }
        if page > 1 { links.append(link(1, "first")) }
        return links.isEmpty ? response : response.adding(header: "Link", links.joined(separator: ", "))
    }

    private static func createRepository(_ request: LoopbackServer.Request) throws -> LoopbackServer.Response
    {
        guard request.value(forHeader: "Authorization") == "Bearer \(token)" else {
            return error(401, "Requires authentication", documentation: "repos/repos#create-a-repository")
        }
        struct Body: Decodable {
            var name: String
        }
        let name = try JSONDecoder().decode(Body.self, from: request.body).name
        guard users["octocat"]?.repositories.contains(name) == false else {
            let refusal =
                #"{"resource": "Repository", "code": "custom", "field": "name", "message": "name already exists on this account"}"#
            return error(
                422, "Validation Failed", documentation: "repos/repos#create-a-repository", errors: refusal)
        }
        let created = ServedRepository(name: name, fullName: "octocat/\(name)", stargazersCount: 0)
        return try .json(encoding: created, status: 201)
    }

    private static func error(
        _ status: Int, _ message: String, documentation page: String, errors: String? = nil
    ) -> LoopbackServer.Response {
        let errors = errors.map { #", "errors": [\#($0)]"# } ?? ""
        return .json(
            #"{"message": "\#(message)"\#(errors), "documentation_url": "https://docs.github.com/rest/\#(page)", "status": "\#(status)"}"#,
            status: status)
    }
}

/// A repository as the server writes it: snake_case keys, spelled out here so that the server
/// does not rely on the client's own decoding.
private struct ServedRepository: Encodable {
    var name: String
    var fullName: String
    var stargazersCount: Int

    enum CodingKeys: String, CodingKey {
        case name
        case fullName = "full_name"
        case stargazersCount = "stargazers_count"
    }
}
