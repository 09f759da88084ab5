import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends `Authorization: Bearer <token>` with every request and, when the server answers 401,
/// refreshes the token once, however many requests were rejected at the same time, then sends
/// each of them again with the new token.
///
/// ```swift
/// let authenticator = BearerAuthenticator(token: storedToken) { rejected in
///     authAPI.refresh(after: rejected)  // a Promise<String> of the new token
/// }
/// api.configuration.adapters = [authenticator]
/// api.configuration.retryPolicy = authenticator.retryPolicy(otherwise: StandardRetryPolicy())
/// ```
///
/// - Single flight: while a refresh runs, requests wait for its token instead of starting
///   another; a 401 for a token that was already replaced is simply retried with the new one.
/// - No loops: a request is sent again after a 401 once; a second 401 is its answer.
/// - Cancelling a request that waits for a refresh leaves the refresh running for the others.
/// - A failed refresh fails every request waiting for it, and the retry of every request the
///   server refused with the token it was to replace, with
///   ``APIError/adaptationFailed(underlying:)`` carrying the refresh's error. A new request still
///   goes out with the current token; if that is refused too, it tries a refresh again.
public final class BearerAuthenticator: RequestAdapter {
    private struct State {
        var token: String?
        var refreshing: Promise<String>?
        /// The last refresh that failed, and the token it was to replace.
        var failure: (replacing: String?, error: any Error)?
    }

    private let state: Locked<State>
    private let refresh: @Sendable (_ rejectedToken: String?) -> Promise<String>

    /// Creates an authenticator.
    /// - Parameters:
    ///   - token: The token to start with; nil refreshes before the first request.
    ///   - refresh: Fetches a new token, given the one the server rejected.
    public init(token: String?, refresh: @escaping @Sendable (_ rejectedToken: String?) -> Promise<String>) {
        state = Locked(State(token: token))
        self.refresh = refresh
    }

    /// The token requests are sent with now, if there is one.
    public var currentToken: String? { state.withLock { $0.token } }

    /// Adds the current token, waiting for a refresh in progress (or starting one if there is
    /// no token yet).
    public func adapt(_ request: URLRequest) -> Promise<URLRequest> {
        adapt(request, earlier: [])
    }

    /// Adds the current token. The attempt after a 401 gets the token that replaced the one
    /// refused, waiting for its refresh, or fails with that refresh's error.
    public func adapt(_ request: URLRequest, earlier: [APIError]) -> Promise<URLRequest> {
        let refused = earlier.last { $0.statusCode == 401 }.map { $0.request.flatMap(Self.token(in:)) }
        enum Next {
            case send(String)
            case wait(Promise<String>)
            case refresh(replacing: String?)
            case fail(any Error)
        }
        let next = state.withLock { state -> Next in
            if let refreshing = state.refreshing { return .wait(refreshing) }
            if let refused, state.token == refused {
                // Refused and not replaced: the refresh for it failed, or was never started.
                if let failure = state.failure, failure.replacing == refused { return .fail(failure.error) }
                return .refresh(replacing: refused)
            }
            if let token = state.token {
                // A request sent after a failed refresh may try again: its 401 starts a new one.
                // (The 401s of requests sent before the failure do not: their retries fail with it.)
                if refused == nil, state.failure?.replacing == token { state.failure = nil }
                return .send(token)
            }
            return .refresh(replacing: nil)
        }
        switch next {
        case .send(let token): return Promise(value: Self.authorize(request, with: token))
        // Each waiter gets a detached promise: one that leaves (its request was cancelled) must
        // not cancel the refresh the others wait for.
        case .wait(let pending): return pending.detached().then { Self.authorize(request, with: $0) }
        case .refresh(let rejected):
            return startRefresh(replacing: rejected).detached().then { Self.authorize(request, with: $0) }
        case .fail(let error): return Promise(error: error)
        }
    }

    /// A retry policy that sends a request rejected with 401 once more after the token was
    /// refreshed, and leaves every other failure to `fallback` (none: no retry).
    public func retryPolicy(otherwise fallback: (any RetryPolicy)? = nil) -> any RetryPolicy {
        RefreshOnUnauthorized(authenticator: self, fallback: fallback)
    }

    /// After a 401 for `request`: starts a refresh unless the token it carried was already
    /// replaced or is being replaced; the request's next attempt waits for it in `adapt`.
    fileprivate func handleUnauthorized(_ request: URLRequest) {
        let sent = Self.token(in: request)
        let needsRefresh = state.withLock { state in
            state.refreshing == nil && state.token == sent && state.failure?.replacing != sent
        }
        if needsRefresh { _ = startRefresh(replacing: sent) }
    }

    /// Starts one refresh, or joins the one already running.
    private func startRefresh(replacing rejected: String?) -> Promise<String> {
        let (promise, resolver) = Promise<String>.pending()
        let existing = state.withLock { state -> Promise<String>? in
            if let refreshing = state.refreshing { return refreshing }
            state.refreshing = promise
            return nil
        }
        if let existing { return existing }
        refresh(rejected).onResult { [state] result in
            state.withLock { state in
                state.refreshing = nil
                switch result {
                case .success(let token):
                    state.token = token
                    state.failure = nil
                case .failure(let error):
                    state.failure = (rejected, error)
                }
            }
            resolver.resolve(result)
        }
        return promise
    }

    private static func authorize(_ request: URLRequest, with token: String) -> URLRequest {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private static func token(in request: URLRequest) -> String? {
        guard let value = request.value(forHTTPHeaderField: "Authorization"), value.hasPrefix("Bearer ")
        else {
            return nil
        }
        return String(value.dropFirst("Bearer ".count))
    }
}

/// ``BearerAuthenticator/retryPolicy(otherwise:)``.
private struct RefreshOnUnauthorized: RetryPolicy {
    let authenticator: BearerAuthenticator
    let fallback: (any RetryPolicy)?

    func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval? {
        retryDelay(after: error, earlier: [], request: request, attempt: attempt)
    }

    func retryDelay(after error: APIError, earlier: [APIError], request: URLRequest, attempt: Int)
        -> TimeInterval?
    {
        guard error.statusCode == 401 else {
            return fallback?.retryDelay(after: error, earlier: earlier, request: request, attempt: attempt)
        }
        // Once per request: a second 401, after a fresh token, is the server's answer.
        guard !earlier.contains(where: { $0.statusCode == 401 }) else { return nil }
        authenticator.handleUnauthorized(request)
        return 0
    }
}
