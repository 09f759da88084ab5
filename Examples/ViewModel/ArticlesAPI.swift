import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The news feed's API: `GET /articles`, with `{"message": …}` bodies when it fails.
///
/// ```swift
/// let api = ArticlesAPI(baseURL: "https://news.example.com")
/// api.articles().onSuccess { print($0.map(\.title)) }
/// ```
public final class ArticlesAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    // @unchecked: `baseURL` never changes; the rest is AbstractAPI's, which locks its state.

    /// Where the API is.
    public let baseURL: String

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: Where the API is.
    ///   - transport: Sends the requests; the default transport when nil, a `MockTransport`
    ///     in tests.
    public init(baseURL: String, transport: (any HTTPTransport)? = nil) {
        self.baseURL = baseURL
        super.init(responseParser: FeedParser(), transport: transport)
    }

    /// The latest articles, newest first.
    /// - Returns: A promise of the articles; it reports download progress (`onProgress`) when
    ///   the server says how long the list is.
    public func articles() -> Promise<[Article]> {
        request(route: get(endpoint: "/articles"))
    }
}

/// What the feed's server says when it refuses a request: `{"message": "Down for maintenance"}`.
public struct FeedError: Decodable, Error, Sendable, Equatable {
    /// The explanation, written for people.
    public var message: String
}

/// Reads the feed's error bodies into ``FeedError``.
final class FeedParser: JSONParser {
    override func getError(from data: Data, response: URLResponse?) -> (any Error)? {
        try? decoder.decode(FeedError.self, from: data)
    }
}
