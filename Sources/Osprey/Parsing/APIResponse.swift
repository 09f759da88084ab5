import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A decoded value together with its response's status and headers: for pagination links,
/// ETags, rate limits.
///
/// ```swift
/// func page() -> Promise<APIResponse<[Product]>> { request(route: get(endpoint: "/products")) }
/// page().onSuccess { print($0.value, $0.headers["Link"] ?? "") }
/// ```
public struct APIResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers, case-insensitive.
    public var headers: HTTPHeaders
    /// The request that got the response (after redirects).
    public var request: URLRequest
    /// The response as Foundation's type, made the first time it is read when the transport
    /// gave only its parts (FoundationNetworking's initialiser is costly; ``statusCode`` and
    /// ``headers`` need none).
    public var response: HTTPURLResponse {
        get { head.response }
        set { head = .made(newValue) }
    }
    /// Where the head comes from (see ``TransportResponse``).
    private var head: HTTPResponseSource
    /// Where the time of the attempt that got the response went, when the transport measured it.
    public var metrics: RequestMetrics?
    /// Whether the API's ``HTTPCache`` answered, and how; nil for an answer from the network.
    public var cacheStatus: CacheStatus?

    /// Creates a response value.
    public init(value: Value, response: HTTPURLResponse, request: URLRequest, metrics: RequestMetrics? = nil)
    {
        self.value = value
        head = .made(response)
        self.request = request
        self.metrics = metrics
        statusCode = response.statusCode
        headers = HTTPHeaders(response)
    }

    /// The value with what the transport delivered around it: its head as the transport gave
    /// it, so that no `HTTPURLResponse` is made unless one is read.
    init(value: Value, exchange: TransportResponse) {
        self.value = value
        head = exchange.head
        request = exchange.request
        metrics = exchange.metrics
        statusCode = exchange.statusCode
        headers = exchange.head.joinedHeaders
        cacheStatus = exchange.cacheStatus
    }
}
