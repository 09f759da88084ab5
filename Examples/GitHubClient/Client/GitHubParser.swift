import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads GitHub's answers: snake_case JSON into the models, and error bodies into
/// ``GitHubError``.
///
/// ```swift
/// let parser = GitHubParser(keyMapping: .snakeCase)
/// ```
public final class GitHubParser: JSONParser {
    /// GitHub's own media type, which its documentation asks clients to send.
    public override var acceptHeader: String? { "application/vnd.github+json" }

    /// The ``GitHubError`` in an error body, or nil when the body is something else (a proxy's
    /// HTML page): the request then fails with the status alone.
    public override func getError(from data: Data, response: URLResponse?) -> (any Error)? {
        try? decoder.decode(GitHubError.self, from: data)
    }
}
