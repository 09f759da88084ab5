import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response as declarative APIs and interceptors see it: status, headers, body and the request
/// that got it; or, for a completion handler of a failed request, the error.
///
/// ```swift
/// @GET("/user")
/// func getUser() async throws -> (User, Response)
///
/// let (user, res) = try await users.getUser()
/// print("The response status code was: \(res.statusCode!)")
/// ```
///
/// `statusCode` is optional as in Papyrus: it is nil only for a failed request that got no
/// response (a transport error, a timeout, a cancellation).
public struct Response: Sendable {
    /// The request that got the response (after redirects), when there is one.
    public var request: URLRequest?
    /// The status code; nil when no response arrived.
    public var statusCode: Int?
    /// The headers, case-insensitive.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?
    /// Why the request failed, for completion handlers; nil for a success.
    public var error: (any Error)?
    /// Whether the body went to a download's file instead of ``body`` (which is then empty): an
    /// interceptor around a download sees this, and returns it unchanged for the file to be kept.
    public var bodyWentToFile: Bool = false
    /// Where the time of the attempt went, when the transport measured it.
    public var metrics: RequestMetrics?
    /// Whether the API's ``HTTPCache`` answered, and how; nil for an answer from the network.
    public var cacheStatus: CacheStatus?

    /// A response.
    public init(
        request: URLRequest? = nil, statusCode: Int? = nil, headers: HTTPHeaders = [:], body: Data? = nil,
        error: (any Error)? = nil
    ) {
        self.request = request
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.error = error
    }

    /// The response a transport delivered.
    init(_ exchange: TransportResponse) {
        self.init(
            request: exchange.request, statusCode: exchange.statusCode, headers: exchange.headers,
            body: exchange.data)
        bodyWentToFile = exchange.bodyWentToSink
        metrics = exchange.metrics
        cacheStatus = exchange.cacheStatus
    }

    /// A failed request's response: what the error knows of the exchange, and the error.
    init(failure error: any Error) {
        let context = (error as? APIError)?.context
        self.init(
            request: context?.request, statusCode: context?.response?.statusCode,
            headers: context?.response.map(HTTPHeaders.init) ?? [:], body: context?.data, error: error)
    }

    /// The transport's form, for the pipeline after interceptors.
    func makeTransportResponse(for request: URLRequest) throws -> TransportResponse {
        let url = self.request?.url ?? request.url
        guard let statusCode, let url,
            let response = HTTPURLResponse(
                url: url, statusCode: statusCode, httpVersion: "HTTP/1.1",
                headerFields: headers.dictionary)
        else {
            throw APIError.invalidRequest(reason: "an interceptor returned a response without a status code")
        }
        var exchange = TransportResponse(
            response: response, data: body ?? Data(), request: self.request ?? request,
            bodyWentToSink: bodyWentToFile)
        exchange.metrics = metrics
        exchange.cacheStatus = cacheStatus
        return exchange
    }
}
