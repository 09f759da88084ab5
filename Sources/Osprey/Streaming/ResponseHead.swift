import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response's head, before its body: what ``ResponseStream/response`` gives as soon as it has
/// arrived and been validated, and what ``AbstractAPI/validate(_:data:)`` decides on.
public struct ResponseHead: Sendable {
    /// The status code.
    public var statusCode: Int
    /// The headers, case-insensitive.
    public var headers: HTTPHeaders
    /// The request that got it (after redirects and adapters).
    public var request: URLRequest
    private let source: HTTPResponseSource

    /// Foundation's form of the head (made the first time it is read, when the transport gave
    /// only the head's parts).
    public var httpResponse: HTTPURLResponse { source.response }

    /// The head of `response`, for `request`.
    public init(_ response: HTTPURLResponse, request: URLRequest) {
        statusCode = response.statusCode
        headers = HTTPHeaders(response)
        self.request = request
        source = .made(response)
    }

    /// The head of a transport's response.
    init(_ exchange: TransportResponse) {
        statusCode = exchange.statusCode
        headers = exchange.headers
        request = exchange.request
        source = exchange.head
    }
}
