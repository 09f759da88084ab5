import Osprey

/// The shop's API, the Osprey way: each call returns a promise at once.
final class StoreAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    // @unchecked: `baseURL` never changes; the rest is AbstractAPI's, which locks its state.

    /// Where the API is.
    let baseURL: String

    /// A client of the API at `baseURL`.
    init(baseURL: String, configuration: APIConfiguration = APIConfiguration()) {
        self.baseURL = baseURL
        super.init(responseParser: JSONParser(), configuration: configuration)
    }

    /// One product.
    func product(_ id: Int) -> Promise<Product> {
        request(route: get(endpoint: "/products/\(id)"))
    }

    /// A product's reviews.
    func reviews(of id: Int) -> Promise<[Review]> {
        request(route: get(endpoint: "/products/\(id)/reviews"))
    }
}
