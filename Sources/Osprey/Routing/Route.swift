/// What every request needs: a method and a URL.
///
/// ```swift
/// request(route: .get("https://api.github.com/users/\(username)/repos"))
/// ```
///
/// A literal URL is an ``Endpoint``, so interpolated values are encoded safely; a `String`
/// value is used verbatim (`.get(baseURL + path)`). Invalid URLs fail the request's promise with
/// ``APIError/invalidRequest(reason:)``; they never crash.
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// The method.
    public var method: HTTPMethod
    /// The URL text, with interpolated values already encoded.
    public var url: String
    /// For routes made by a ``BaseAPI``: the base URL whose origin (scheme, host and port) the
    /// request must keep.
    public var baseURL: String?

    /// A route from a method and a URL.
    public init(method: HTTPMethod, url: Endpoint, baseURL: String? = nil) {
        self.method = method
        self.url = url.rawValue
        self.baseURL = baseURL
    }

    /// `METHOD url`.
    public var description: String { "\(method) \(url)" }
}

extension Route {
    /// A route with any method, such as `HTTPMethod("PURGE")`.
    public static func method(_ method: HTTPMethod, _ url: Endpoint) -> Route {
        Route(method: method, url: url)
    }

    /// A `GET` route.
    public static func get(_ url: Endpoint) -> Route { Route(method: .get, url: url) }
    /// A `POST` route.
    public static func post(_ url: Endpoint) -> Route { Route(method: .post, url: url) }
    /// A `PUT` route.
    public static func put(_ url: Endpoint) -> Route { Route(method: .put, url: url) }
    /// A `PATCH` route.
    public static func patch(_ url: Endpoint) -> Route { Route(method: .patch, url: url) }
    /// A `DELETE` route.
    public static func delete(_ url: Endpoint) -> Route { Route(method: .delete, url: url) }
    /// A `HEAD` route.
    public static func head(_ url: Endpoint) -> Route { Route(method: .head, url: url) }
    /// An `OPTIONS` route.
    public static func options(_ url: Endpoint) -> Route { Route(method: .options, url: url) }

    // The raw overloads are generic and disfavoured on purpose: that is what keeps every string
    // literal, interpolated or not, on the safe `Endpoint` overloads above.

    /// A route with any method and a URL used verbatim.
    @_disfavoredOverload
    public static func method(_ method: HTTPMethod, _ url: some StringProtocol) -> Route {
        Route(method: method, url: Endpoint(verbatim: String(url)))
    }

    /// A `GET` route to a URL used verbatim.
    @_disfavoredOverload
    public static func get(_ url: some StringProtocol) -> Route { .method(.get, url) }
    /// A `POST` route to a URL used verbatim.
    @_disfavoredOverload
    public static func post(_ url: some StringProtocol) -> Route { .method(.post, url) }
    /// A `PUT` route to a URL used verbatim.
    @_disfavoredOverload
    public static func put(_ url: some StringProtocol) -> Route { .method(.put, url) }
    /// A `PATCH` route to a URL used verbatim.
    @_disfavoredOverload
    public static func patch(_ url: some StringProtocol) -> Route { .method(.patch, url) }
    /// A `DELETE` route to a URL used verbatim.
    @_disfavoredOverload
    public static func delete(_ url: some StringProtocol) -> Route { .method(.delete, url) }
    /// A `HEAD` route to a URL used verbatim.
    @_disfavoredOverload
    public static func head(_ url: some StringProtocol) -> Route { .method(.head, url) }
    /// An `OPTIONS` route to a URL used verbatim.
    @_disfavoredOverload
    public static func options(_ url: some StringProtocol) -> Route { .method(.options, url) }
}
