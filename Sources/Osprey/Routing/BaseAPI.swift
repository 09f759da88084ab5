/// An API whose routes share a base URL: `get(endpoint: "/products")` joins the endpoint to
/// `baseURL` with exactly one `/`, keeping any path prefix of the base (`https://host/v2`) and
/// any trailing slash of the endpoint.
///
/// ```swift
/// final class ProductsAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
///     let baseURL = "https://myapi"
///     func products() -> Promise<[Product]> { request(route: get(endpoint: "/products")) }
/// }
/// ```
///
/// Routes made this way can never leave the base URL's origin: a request whose final URL has
/// another scheme, host or port fails with ``APIError/invalidRequest(reason:)``.
public protocol BaseAPI {
    /// The URL every endpoint is joined to, such as `https://api.example.com/v2`.
    var baseURL: String { get }
}

extension BaseAPI {
    /// The route for `method` and `endpoint` joined to ``baseURL``.
    public func route(_ method: HTTPMethod, endpoint: Endpoint) -> Route {
        Route(
            method: method, url: Endpoint(verbatim: joinURL(baseURL, endpoint.rawValue)), baseURL: baseURL)
    }

    /// A `GET` route to `endpoint`.
    public func get(endpoint: Endpoint) -> Route { route(.get, endpoint: endpoint) }
    /// A `POST` route to `endpoint`.
    public func post(endpoint: Endpoint) -> Route { route(.post, endpoint: endpoint) }
    /// A `PUT` route to `endpoint`.
    public func put(endpoint: Endpoint) -> Route { route(.put, endpoint: endpoint) }
    /// A `PATCH` route to `endpoint`.
    public func patch(endpoint: Endpoint) -> Route { route(.patch, endpoint: endpoint) }
    /// A `DELETE` route to `endpoint`.
    public func delete(endpoint: Endpoint) -> Route { route(.delete, endpoint: endpoint) }
    /// A `HEAD` route to `endpoint`.
    public func head(endpoint: Endpoint) -> Route { route(.head, endpoint: endpoint) }
    /// An `OPTIONS` route to `endpoint`.
    public func options(endpoint: Endpoint) -> Route { route(.options, endpoint: endpoint) }

    // Generic and disfavoured, so that literals always take the safe overloads above.

    /// The route for `method` and an endpoint used verbatim.
    @_disfavoredOverload
    public func route(_ method: HTTPMethod, endpoint: some StringProtocol) -> Route {
        route(method, endpoint: Endpoint(verbatim: String(endpoint)))
    }

    /// A `GET` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func get(endpoint: some StringProtocol) -> Route { route(.get, endpoint: endpoint) }
    /// A `POST` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func post(endpoint: some StringProtocol) -> Route { route(.post, endpoint: endpoint) }
    /// A `PUT` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func put(endpoint: some StringProtocol) -> Route { route(.put, endpoint: endpoint) }
    /// A `PATCH` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func patch(endpoint: some StringProtocol) -> Route { route(.patch, endpoint: endpoint) }
    /// A `DELETE` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func delete(endpoint: some StringProtocol) -> Route { route(.delete, endpoint: endpoint) }
    /// A `HEAD` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func head(endpoint: some StringProtocol) -> Route { route(.head, endpoint: endpoint) }
    /// An `OPTIONS` route to an endpoint used verbatim.
    @_disfavoredOverload
    public func options(endpoint: some StringProtocol) -> Route { route(.options, endpoint: endpoint) }
}
