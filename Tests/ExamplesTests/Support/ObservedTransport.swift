import Foundation
import Osprey
import OspreyTesting

/// Hands every request to a `MockTransport`, after reporting download progress if asked to, and
/// tells the test when each request reaches the transport and when its cancellation does: the
/// only way to see that cancelling a client's promise cancelled the network work beneath it.
final class ObservedTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `count` is locked; the arrays never change after init, and resolvers are
    // thread-safe.

    /// Answers the requests.
    let mock = MockTransport()
    private let progress: (completed: Int64, expected: Int64?)?
    private let count = Locked(0)
    private let sentSignals: [(promise: Promise<Void>, resolver: Resolver<Void>)]
    private let cancelledSignals: [(promise: Promise<Void>, resolver: Resolver<Void>)]

    /// A transport that reports `progress` (bytes received, expected) for every request before
    /// answering it.
    init(reportingProgress progress: (completed: Int64, expected: Int64?)? = nil) {
        self.progress = progress
        // Eight requests are more than any test sends.
        sentSignals = (0..<8).map { _ in Promise<Void>.pending() }
        cancelledSignals = (0..<8).map { _ in Promise<Void>.pending() }
    }

    /// Fulfilled once request `number` (from 1) has reached the transport; rejected after 60 s,
    /// so that a test fails instead of hanging.
    func sent(_ number: Int) -> Promise<Void> {
        sentSignals[number - 1].promise.timeout(60)
    }

    /// Fulfilled once request `number`'s transport promise has been cancelled; rejected after
    /// 60 s.
    func cancelled(_ number: Int) -> Promise<Void> {
        cancelledSignals[number - 1].promise.timeout(60)
    }

    /// Reports the progress, if any, then answers from the mock.
    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        let index = count.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        if let progress { request.progress?(.download, progress.completed, progress.expected) }
        // Only cancellation ends an answer that never comes: a busy runner (ThreadSanitizer on
        // a loaded machine) was seen to hold a test past the APIs' one-minute idle timeout
        // before it got to cancel.
        var request = request
        request.idleTimeout = 600
        let exchange = mock.send(request)
        let cancelled = cancelledSignals[index].resolver
        exchange.onCancel { cancelled.fulfill(()) }
        sentSignals[index].resolver.fulfill(())
        return exchange
    }
}
