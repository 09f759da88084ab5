import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response's head, before its body: what ``ResponseStream/response`` gives as soon as it has
/// arrived and been validated.
public struct ResponseHead: Sendable {
    /// The status code.
    public var statusCode: Int
    /// The headers, case-insensitive.
    public var headers: HTTPHeaders
    /// The request that got it (after redirects and adapters).
    public var request: URLRequest
    /// Foundation's form of the head.
    public var httpResponse: HTTPURLResponse

    /// The head of `response`, for `request`.
    public init(_ response: HTTPURLResponse, request: URLRequest) {
        statusCode = response.statusCode
        headers = HTTPHeaders(response)
        self.request = request
        httpResponse = response
    }
}
