import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: one long-lived `URLSession` per transport, driven through
/// delegate callbacks (not `data(for:)`, whose cancellation can deadlock on Linux).
///
/// On top of URLSession it enforces, identically on Linux and Apple platforms: exact idle
/// timeouts and a total deadline (its own timers), a maximum response size, truncated bodies
/// as errors, redirects per ``RedirectPolicy``, and prompt 401s for Basic challenges.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: SessionDelegate
    private let timers = DispatchQueue(label: "osprey.transport.timers")

    /// Creates a transport with its own session.
    /// - Parameter configuration: The session configuration; ephemeral (no shared cookies or
    ///   cache) by default.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let delegate = SessionDelegate()
        self.delegate = delegate
        session = URLSession(
            configuration: configuration, delegate: delegate, delegateQueue: .transportDelegateQueue())
    }

    deinit {
        // Requests in flight keep the transport alive, so nothing is left to finish here. The
        // last reference can go on any thread, the session's delegate queue included, where
        // invalidating synchronously could wait on itself: hand it to another queue.
        let session = self.session
        DispatchQueue.global().async { session.invalidateAndCancel() }
    }

    /// Sends the request; see ``HTTPTransport``.
    public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        let (promise, resolver) = Promise<TransportResponse>.pending()
        let exchange = Exchange(request, resolver: resolver, timers: timers)
        // The exchange (and through it this transport) stays alive until the promise settles.
        resolver.onCancel { [self] in withExtendedLifetime(self) { exchange.cancel() } }
        exchange.startTimers()
        exchange.startTask(in: session, registry: delegate.registry)
        return promise
    }
}
