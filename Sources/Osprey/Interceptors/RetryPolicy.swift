import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides whether a failed request is sent again, and after how long.
///
/// The pipeline asks after every failed attempt that reached the transport (a transport error, a
/// timeout, an unacceptable status, a body that could not be parsed or saved), never after a
/// cancellation or an error in building or adapting the request. A retry
/// runs the request adapters again and resends the same body. The API's total `deadline`
/// covers every attempt and every wait: a retry that could not start before it is not made.
/// ``StandardRetryPolicy`` covers the usual needs.
public protocol RetryPolicy: Sendable {
    /// The seconds to wait before attempt `attempt + 1`, or nil to give up with `error`.
    /// - Parameters:
    ///   - error: Why attempt `attempt` failed.
    ///   - request: The request as sent in that attempt.
    ///   - attempt: The attempt that failed, from 1.
    func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval?

    /// The same decision, knowing how the earlier attempts of this request failed (oldest
    /// first; empty after the first attempt). What the pipeline calls; by default it asks
    /// ``retryDelay(after:request:attempt:)``. Implement it to retry some failure only once per
    /// request, for example.
    func retryDelay(after error: APIError, earlier: [APIError], request: URLRequest, attempt: Int)
        -> TimeInterval?
}

extension RetryPolicy {
    /// Asks ``retryDelay(after:request:attempt:)``, ignoring the earlier failures.
    public func retryDelay(after error: APIError, earlier: [APIError], request: URLRequest, attempt: Int)
        -> TimeInterval?
    {
        retryDelay(after: error, request: request, attempt: attempt)
    }
}
