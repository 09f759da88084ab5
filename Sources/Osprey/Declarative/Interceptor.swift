import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Wraps every exchange of a ``Provider``'s clients: it sees the request about to be sent, may
/// change or replace it, calls `next` to send it (or answers without sending), and sees or
/// replaces the response.
///
/// ```swift
/// struct Timing: Interceptor {
///     func intercept(req: InterceptedRequest, next: Interceptor.Next) async throws -> Response {
///         let start = Date()
///         let res = try await next(req)
///         print("\(req.method) \(req.url!.relativePath): \(Date().timeIntervalSince(start)) s")
///         return res
///     }
/// }
/// ```
///
/// Interceptors run in the order given, around the transport: after request adapters, for every
/// attempt, before status validation and parsing. Redirects are followed inside `next`. An error
/// an interceptor throws fails the attempt as ``APIError/transport(underlying:context:)``.
public protocol Interceptor: Sendable {
    /// Sends the request on: to the next interceptor, then the transport.
    typealias Next = @Sendable (InterceptedRequest) async throws -> Response

    /// Handles one exchange.
    func intercept(req: InterceptedRequest, next: Next) async throws -> Response
}

/// An ``Interceptor`` from a closure, as `Provider.intercept { req, next in … }` makes.
public struct AnyInterceptor: Interceptor {
    private let body: @Sendable (InterceptedRequest, Next) async throws -> Response

    /// An interceptor that runs `body`.
    public init(_ body: @escaping @Sendable (InterceptedRequest, Next) async throws -> Response) {
        self.body = body
    }

    /// Runs the closure.
    public func intercept(req: InterceptedRequest, next: Next) async throws -> Response {
        try await body(req, next)
    }
}

/// The request an ``Interceptor`` sees: the `URLRequest` about to be sent, with Papyrus's names
/// for its parts.
public struct InterceptedRequest: Sendable {
    /// The request, with its limits (timeouts, size limit, redirect policy).
    public var transportRequest: TransportRequest

    /// The request itself.
    public var urlRequest: URLRequest {
        get { transportRequest.urlRequest }
        set { transportRequest.urlRequest = newValue }
    }

    /// The method, such as `GET`.
    public var method: String {
        get { transportRequest.urlRequest.httpMethod ?? "GET" }
        set { transportRequest.urlRequest.httpMethod = newValue }
    }

    /// The URL.
    public var url: URL? {
        get { transportRequest.urlRequest.url }
        set { transportRequest.urlRequest.url = newValue }
    }

    /// The headers.
    public var headers: [String: String] {
        get { transportRequest.urlRequest.allHTTPHeaderFields ?? [:] }
        set { transportRequest.urlRequest.allHTTPHeaderFields = newValue }
    }

    /// The body held in memory; nil for none or for a body streamed from a file
    /// (`transportRequest.bodyFileURL`).
    public var body: Data? {
        get { transportRequest.urlRequest.httpBody }
        set { transportRequest.urlRequest.httpBody = newValue }
    }
}

/// Runs a provider's interceptors around another transport.
struct InterceptingTransport: HTTPTransport, CookieJarTransport {
    let base: any HTTPTransport
    let interceptors: [any Interceptor]

    var cookies: CookieJar? { (base as? any CookieJarTransport)?.cookies }

    /// The same interceptors around another transport.
    func wrapping(base: any HTTPTransport) -> InterceptingTransport {
        InterceptingTransport(base: base, interceptors: interceptors)
    }

    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        let base = base
        let send: Interceptor.Next = { intercepted in
            Response(try await base.send(intercepted.transportRequest).value)
        }
        let chain = interceptors.reversed().reduce(send) { next, interceptor in
            { request in try await interceptor.intercept(req: request, next: next) }
        }
        return Promise {
            let response = try await chain(InterceptedRequest(transportRequest: request))
            return try response.makeTransportResponse(for: request.urlRequest)
        }
    }
}
