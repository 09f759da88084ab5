import Foundation
import Osprey

/// One page of a list GitHub paginates: its items and, from the response's `Link` header, where
/// the next page is.
///
/// ```swift
/// let page = try await github.repositories(of: "octocat").value
/// print(page.items.count, page.nextURL?.absoluteString ?? "last page")
/// ```
public struct Page<Item: Sendable>: Sendable {
    /// The items on this page.
    public var items: [Item]
    /// The `rel="next"` link, resolved against the request's URL; nil on the last page.
    public var nextURL: URL?

    /// A page.
    public init(items: [Item], nextURL: URL?) {
        self.items = items
        self.nextURL = nextURL
    }

    /// The page a response holds: its decoded items and its `Link` header's next page.
    /// - Parameter response: The response, as `APIResponse` gives it (value and headers).
    public init(_ response: APIResponse<[Item]>) {
        let next = response.headers.values(for: "Link").lazy
            .compactMap { LinkHeader($0).target(forRelation: "next") }
            .first
        // RFC 8288 §3.1: a relative target is resolved against the URL that was asked for.
        self.init(
            items: response.value,
            nextURL: next.flatMap { URL(string: $0, relativeTo: response.request.url)?.absoluteURL })
    }
}
