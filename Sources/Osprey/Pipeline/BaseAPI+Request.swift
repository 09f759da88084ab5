import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Typed ``Request`` values, sent relative to the API's `baseURL`: only an API that conforms to
/// ``BaseAPI`` has them, so a client without a base URL cannot send one (a compile error, not a
/// failure at run time).
extension BaseAPI where Self: AbstractAPI {
    /// Sends a typed request and decodes the body as `T` with the API's parser.
    @_disfavoredOverload  // so that a `Request<T?>` picks the overload that accepts no body
    public func request<T: Decodable & Sendable>(_ request: Request<T>) -> Promise<T> {
        self.request(route: request.route(relativeTo: baseURL), parameters: request.parameters)
    }

    /// Sends a typed request whose answer may have no body: nil for 204, 205, an empty body or
    /// `null`.
    public func request<T: Decodable & Sendable>(_ request: Request<T?>) -> Promise<T?> {
        self.request(route: request.route(relativeTo: baseURL), parameters: request.parameters)
    }

    /// Sends a typed request whose body does not matter.
    public func request(_ request: Request<Void>) -> Promise<Void> {
        self.request(route: request.route(relativeTo: baseURL), parameters: request.parameters)
    }

    /// Sends a typed request for the raw body.
    public func request(_ request: Request<Data>) -> Promise<Data> {
        self.request(route: request.route(relativeTo: baseURL), parameters: request.parameters)
    }

    /// Sends a typed request for the body as text, in the response's charset, as
    /// `request(route:parameters:) -> Promise<String>` does (not JSON-decoded).
    public func request(_ request: Request<String>) -> Promise<String> {
        self.request(route: request.route(relativeTo: baseURL), parameters: request.parameters)
    }
}
