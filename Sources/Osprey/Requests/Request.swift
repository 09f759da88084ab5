import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A typed description of one API call: method, endpoint, parameters, and the type of its
/// result. Declare them as static factories and send them through an API:
///
/// ```swift
/// extension Request {
///     static func login(_ body: Credentials) -> Request<Session> {
///         .post("login", body: body)
///     }
/// }
/// let login: Request<Session> = .login(credentials)
/// let url = try login.makeURLRequest(relativeTo: "https://api.example.com")
/// ```
public struct Request<Output>: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The endpoint, joined to the API's base URL.
    public var endpoint: Endpoint
    /// Query, body and headers.
    public var parameters: (any RequestParameters)?

    /// Creates a request.
    public init(method: HTTPMethod, endpoint: Endpoint, parameters: (any RequestParameters)? = nil) {
        self.method = method
        self.endpoint = endpoint
        self.parameters = parameters
    }

    /// A `GET` with optional query parameters.
    public static func get(
        _ endpoint: Endpoint, query: [String: any Sendable] = [:], headers: HTTPHeaders = [:]
    )
        -> Request
    {
        Request(method: .get, endpoint: endpoint, parameters: URLParameters(query, headers: headers))
    }

    /// A `DELETE` with optional query parameters.
    public static func delete(
        _ endpoint: Endpoint, query: [String: any Sendable] = [:], headers: HTTPHeaders = [:]
    )
        -> Request
    {
        Request(method: .delete, endpoint: endpoint, parameters: URLParameters(query, headers: headers))
    }

    /// A `POST` with a JSON body.
    public static func post(_ endpoint: Endpoint, body: some Encodable & Sendable, headers: HTTPHeaders = [:])
        -> Request
    {
        Request(method: .post, endpoint: endpoint, parameters: JSONParameters(body, headers: headers))
    }

    /// A `PUT` with a JSON body.
    public static func put(_ endpoint: Endpoint, body: some Encodable & Sendable, headers: HTTPHeaders = [:])
        -> Request
    {
        Request(method: .put, endpoint: endpoint, parameters: JSONParameters(body, headers: headers))
    }

    /// A `PATCH` with a JSON body.
    public static func patch(
        _ endpoint: Endpoint, body: some Encodable & Sendable, headers: HTTPHeaders = [:]
    )
        -> Request
    {
        Request(method: .patch, endpoint: endpoint, parameters: JSONParameters(body, headers: headers))
    }

    /// A request with any method and parameters of any kind (form, multipart, your own).
    public static func method(_ method: HTTPMethod, _ endpoint: Endpoint, parameters: any RequestParameters)
        -> Request
    {
        Request(method: method, endpoint: endpoint, parameters: parameters)
    }

    /// The route of this request under `baseURL` (see ``BaseAPI``).
    public func route(relativeTo baseURL: String) -> Route {
        BaseURL(baseURL: baseURL).route(method, endpoint: endpoint)
    }

    /// The `URLRequest` this request makes under `baseURL`.
    /// - Throws: ``APIError/invalidRequest(reason:)`` or ``APIError/encodingFailed(reason:underlying:)``.
    public func makeURLRequest(
        relativeTo baseURL: String,
        headers: HTTPHeaders = [:],
        encoding: ParameterEncoding = ParameterEncoding()
    ) throws -> URLRequest {
        try route(relativeTo: baseURL).makeURLRequest(
            parameters: parameters, headers: headers, encoding: encoding)
    }
}

private struct BaseURL: BaseAPI {
    let baseURL: String
}
