import Foundation

/// What the clients `@API` generates share: the base URL, the API configuration, the transport,
/// and Papyrus's request modifiers and interceptors.
///
/// ```swift
/// let provider = Provider(baseURL: "http://localhost:3000")
///     .modifyRequests { (req: inout RequestBuilder) in req.addHeader("X-Client", value: "demo") }
///     .intercept { req, next in
///         let res = try await next(req)
///         print("Got a \(res.statusCode!) for \(req.method) \(req.url!.relativePath)")
///         return res
///     }
/// let users: Users = UsersAPI(provider: provider)
/// ```
///
/// A provider is a value: `modifyRequests` and `intercept` return a changed copy.
public struct Provider: Sendable {
    /// The URL every path is joined to.
    public var baseURL: String
    /// Default headers, timeouts, limits, adapters, retries and monitors.
    public var configuration: APIConfiguration
    /// Sends requests; each client makes its own default transport when nil (see
    /// ``AbstractAPI/init(responseParser:transport:configuration:)``).
    public var transport: (any HTTPTransport)?
    /// Run on every request before it is encoded, in order.
    public var modifiers: [any RequestModifier]
    /// Run around every exchange, in order (the first is the outermost).
    public var interceptors: [any Interceptor]

    /// A provider.
    /// - Parameters:
    ///   - baseURL: The URL every path is joined to.
    ///   - transport: Sends requests; a new default transport per client when nil.
    ///   - configuration: Default headers, timeouts, limits, adapters, retries and monitors.
    ///   - modifiers: Change every request before it is encoded.
    ///   - interceptors: Wrap every exchange.
    public init(
        baseURL: String,
        transport: (any HTTPTransport)? = nil,
        configuration: APIConfiguration = APIConfiguration(),
        modifiers: [any RequestModifier] = [],
        interceptors: [any Interceptor] = []
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.configuration = configuration
        self.modifiers = modifiers
        self.interceptors = interceptors
    }

    /// This provider with one more request modifier.
    public func modifyRequests(_ modifier: @escaping @Sendable (inout RequestBuilder) throws -> Void)
        -> Provider
    {
        var copy = self
        copy.modifiers.append(AnyRequestModifier(modifier))
        return copy
    }

    /// This provider with one more interceptor, inside those added before.
    public func intercept(
        _ interceptor: @escaping @Sendable (InterceptedRequest, Interceptor.Next) async throws -> Response
    ) -> Provider {
        var copy = self
        copy.interceptors.append(AnyInterceptor(interceptor))
        return copy
    }

    /// A builder for a request to `path`, carrying this provider's modifiers.
    public func makeRequest(method: HTTPMethod, path: String) -> RequestBuilder {
        RequestBuilder(baseURL: baseURL, method: method, path: path, modifiers: modifiers)
    }

    /// The transport a client uses: the provider's (or a new default one), wrapped
    /// in the interceptors.
    public func makeTransport() -> (any HTTPTransport)? {
        guard !interceptors.isEmpty else { return transport }
        return InterceptingTransport(base: transport ?? DefaultTransport.make(), interceptors: interceptors)
    }
}
