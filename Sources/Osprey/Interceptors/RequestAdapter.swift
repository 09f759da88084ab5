import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Changes each request just before it is sent, for example to add an access token that may
/// first have to be fetched or refreshed.
///
/// Adapters run in the order of ``APIConfiguration/adapters``, on every attempt (so a retry
/// after a `401` picks up a refreshed token), after the request was built and before it goes
/// to the transport. A rejected promise fails the request with
/// ``APIError/adaptationFailed(underlying:)`` and nothing is sent; headers an adapter adds are
/// validated like any others. Cancelling a request does not cancel the promise its adapter
/// returned, which may be shared or cached: the request only stops waiting for it.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send, at once or later.
    func adapt(_ request: URLRequest) -> Promise<URLRequest>

    /// The same, knowing how this request's earlier attempts failed (oldest first; empty for
    /// the first attempt). What the pipeline calls; by default it asks ``adapt(_:)``.
    func adapt(_ request: URLRequest, earlier: [APIError]) -> Promise<URLRequest>
}

extension RequestAdapter {
    /// Asks ``adapt(_:)``, ignoring the earlier failures.
    public func adapt(_ request: URLRequest, earlier: [APIError]) -> Promise<URLRequest> {
        adapt(request)
    }
}

/// A ``RequestAdapter`` made from a closure.
///
/// ```swift
/// configuration.adapters = [
///     AdaptRequest { request in request.setValue("Bearer \(tokens.current)", forHTTPHeaderField: "Authorization") },
///     AdaptRequest { request in try await tokens.signed(request) },
/// ]
/// ```
public struct AdaptRequest: RequestAdapter {
    private let body: @Sendable (URLRequest) -> Promise<URLRequest>

    /// Changes the request in place; throwing fails the request.
    public init(_ modify: @escaping @Sendable (inout URLRequest) throws -> Void) {
        body = { request in
            var request = request
            do {
                try modify(&request)
                return Promise(value: request)
            } catch {
                return Promise(error: error)
            }
        }
    }

    /// Returns the request to send from an asynchronous function (such as a token refresh);
    /// throwing fails the request.
    public init(async adapt: @escaping @Sendable (URLRequest) async throws -> URLRequest) {
        body = { request in Promise { try await adapt(request) } }
    }

    /// Returns the request to send as a promise, for adapters written with promises.
    public init(promise adapt: @escaping @Sendable (URLRequest) -> Promise<URLRequest>) {
        body = adapt
    }

    /// Runs the closure.
    public func adapt(_ request: URLRequest) -> Promise<URLRequest> {
        body(request)
    }
}
