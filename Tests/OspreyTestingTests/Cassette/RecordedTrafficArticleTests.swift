import Foundation
import Osprey
import OspreyTesting
import Testing

/// The snippets of the "Testing against recorded traffic" article, run. The recording is made
/// first from a mock with the article's URLs, as a real first run would make it from GitHub.
enum RecordedTrafficArticle {
    struct Repository: Decodable, Sendable {
        var name: String
    }

    /// The client of the "Testing your client" article.
    final class RepositoriesAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init(baseURL: String = "https://api.github.com", transport: (any HTTPTransport)? = nil) {
            self.baseURL = baseURL
            super.init(responseParser: JSONParser(), transport: transport)
        }

        func repositories(of username: String) -> Promise<[Repository]> {
            request(route: get(endpoint: "/users/\(username)/repos"))
        }
    }

    @Suite("Article: testing against recorded traffic")
    struct Tests {
        @Test("the first snippet replays the recording offline; an unrecorded request fails")
        func firstSnippet() async throws {
            let folder = try CassetteFolder()
            defer { folder.cleanUp() }
            let file = folder.file("repositories.har")
            let github = MockTransport()
            github.route("GET", "/users/:name/repos") { _ in .json(#"[{"name": "swift"}, {"name": "llvm"}]"#)
            }
            _ = try await RepositoriesAPI(transport: try Cassette(file: file, transport: github))
                .repositories(of: "apple").value

            // The article's test, with the fixture folder made above.
            let cassette = try Cassette(file: file)
            let api = RepositoriesAPI(transport: cassette)
            let repositories = try await api.repositories(of: "apple").value
            #expect(repositories.contains { $0.name == "swift" })

            let unrecorded = await api.repositories(of: "google").result
            guard case .failure(APIError.transport(let underlying as Cassette.Unmatched, _)) = unrecorded
            else {
                Issue.record("expected Cassette.Unmatched, got \(unrecorded)")
                return
            }
            #expect(underlying.nearest == "GET https://api.github.com/users/apple/repos")
            #expect(github.requests.count == 1)
        }

        @Test(
            "the redaction snippet: the token never reaches the file, and a replay with another token matches"
        )
        func redactionSnippet() async throws {
            let folder = try CassetteFolder()
            defer { folder.cleanUp() }
            let file = folder.file()
            let token = CassetteSecretTests.token
            let github = MockTransport()
            github.route("GET", "/users/:name/repos") { _ in .json(#"[{"name": "swift"}]"#) }
            func fetch(_ cassette: Cassette, token: String) async throws -> [Repository] {
                let api = RepositoriesAPI(transport: cassette)
                api.configuration.headers["Authorization"] = "Bearer \(token)"
                return try await api.request(
                    route: api.get(endpoint: "/users/apple/repos"),
                    parameters: URLParameters(["api_key": token])
                ).value
            }

            var redaction = HARRedaction()
            redaction.queryItems = ["api_key"]
            redaction.jsonFields = ["access_token", "password"]
            redaction.secrets = [token]
            let cassette = try Cassette(file: file, transport: github, redaction: redaction)
            _ = try await fetch(cassette, token: token)
            #expect(!(try folder.writtenText().contains(token)))

            let replayed = try await fetch(
                try Cassette(file: file, mode: .none, redaction: redaction), token: "another")
            #expect(replayed.map(\.name) == ["swift"])
        }
    }
}
