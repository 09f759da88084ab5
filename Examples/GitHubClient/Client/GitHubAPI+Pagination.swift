import Foundation
import Osprey

extension GitHubAPI {
    /// A list that did not end: its pages' `next` links went on past the limit the caller set
    /// (a server whose links go round in circles, or a list far longer than expected).
    public struct TooManyPages: Error, Sendable, Equatable {
        /// The number of pages read before giving up.
        public var limit: Int
    }

    /// The page after `page`, from its `next` link.
    ///
    /// The link must stay on the API's origin, as every route of a `BaseAPI` must: a link to
    /// another host fails with `APIError.invalidRequest` instead of taking the token there.
    /// - Parameter page: A page this API returned.
    /// - Returns: A promise of the next page, or nil on the last page.
    public func nextPage<Item: Decodable & Sendable>(after page: Page<Item>) -> Promise<Page<Item>>? {
        page.nextURL.map { self.page(following: $0) }
    }

    /// Every public repository of `user`: the first page, then each `next` link until a page
    /// has none.
    /// - Parameters:
    ///   - user: The login, such as `octocat`.
    ///   - perPage: Repositories per page (GitHub allows up to 100: fewer requests).
    ///   - maximumPages: How many pages to read at most before failing with ``TooManyPages``.
    /// - Returns: A promise of the repositories, in the pages' order. Cancelling it cancels the
    ///   page in flight; any failed page fails the whole list.
    public func allRepositories(of user: String, perPage: Int = 100, maximumPages: Int = 50)
        -> Promise<[Repository]>
    {
        allItems(
            from: repositories(of: user, perPage: perPage), pagesRead: 1, limit: maximumPages, collected: [])
    }

    /// Adds the items of `page`, then of the pages after it, one request at a time.
    private func allItems<Item: Decodable & Sendable>(
        from page: Promise<Page<Item>>, pagesRead: Int, limit: Int, collected: [Item]
    ) -> Promise<[Item]> {
        page.then { page -> Promise<[Item]> in
            let items = collected + page.items
            guard let next = page.nextURL else { return Promise(value: items) }
            guard pagesRead < limit else { throw TooManyPages(limit: limit) }
            return self.allItems(
                from: self.page(following: next), pagesRead: pagesRead + 1, limit: limit, collected: items)
        }
    }

    private func page<Item: Decodable & Sendable>(following url: URL) -> Promise<Page<Item>> {
        // `baseURL` makes the pipeline refuse a URL outside the API's origin.
        page(at: Route(method: .get, url: Endpoint(verbatim: url.absoluteString), baseURL: baseURL))
    }
}
