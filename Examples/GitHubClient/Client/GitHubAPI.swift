import Foundation
import Osprey

/// A client for the part of GitHub's REST API that lists and creates repositories.
///
/// ```swift
/// let github = GitHubAPI(token: "ghp_…")
/// let repositories = try await github.allRepositories(of: "octocat").value
/// let created = try await github.createRepository(NewRepository(name: "osprey")).value
/// ```
///
/// Failures are `APIError`s; when GitHub explained itself, the explanation is the
/// ``GitHubError`` in `APIError.unacceptableStatus`'s `serverError` (`error.underlyingError`).
public final class GitHubAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    // @unchecked: `baseURL` never changes; the rest is AbstractAPI's, which locks its state.

    /// Where the API is: `https://api.github.com`, or a test server.
    public let baseURL: String

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: Where the API is.
    ///   - token: A personal access token, sent as `Authorization: Bearer …` (only to
    ///     `baseURL`'s origin: the client never leaves it, pagination links included).
    ///   - transport: Sends the requests; the default transport when nil, a `MockTransport`
    ///     in tests.
    public init(
        baseURL: String = "https://api.github.com", token: String? = nil,
        transport: (any HTTPTransport)? = nil
    ) {
        self.baseURL = baseURL
        var configuration = APIConfiguration()
        // GitHub's keys are snake_case, in query parameters and bodies as in answers.
        configuration.encoding.keyMapping = .snakeCase
        // Pins the answers' format: GitHub changes it only under a new version.
        configuration.headers["X-GitHub-Api-Version"] = "2022-11-28"
        if let token { configuration.headers.setAuthorization(.bearer(token)) }
        super.init(
            responseParser: GitHubParser(keyMapping: .snakeCase), transport: transport,
            configuration: configuration)
    }

    /// The first page of `user`'s public repositories; follow ``Page/nextURL`` with
    /// ``nextPage(after:)``, or use ``allRepositories(of:perPage:maximumPages:)``.
    /// - Parameters:
    ///   - user: The login, such as `octocat`.
    ///   - perPage: Repositories per page (GitHub allows up to 100).
    /// - Returns: A promise of the page.
    public func repositories(of user: String, perPage: Int = 30) -> Promise<Page<Repository>> {
        page(at: get(endpoint: "/users/\(user)/repos"), parameters: URLParameters(["per_page": perPage]))
    }

    /// Creates a repository for the user the token belongs to.
    /// - Parameter repository: Its name, description and visibility.
    /// - Returns: A promise of the repository as GitHub created it; a name already taken fails
    ///   with status 422 and a ``GitHubError`` listing the refused field.
    public func createRepository(_ repository: NewRepository) -> Promise<Repository> {
        request(route: post(endpoint: "/user/repos"), parameters: JSONParameters(repository))
    }

    /// Requests a page and reads it with its `Link` header.
    func page<Item: Decodable & Sendable>(at route: Route, parameters: (any RequestParameters)? = nil)
        -> Promise<Page<Item>>
    {
        let response: Promise<APIResponse<[Item]>> = request(route: route, parameters: parameters)
        return response.then { Page($0) }
    }
}
