import Dispatch

extension Promise {
    /// Runs `body` on the thread that settles the promise, or here and now when it already is:
    /// no queue hop. For the package's own pipeline, which decides itself where its work goes
    /// next; user handlers never run inline (see the threading model).
    /// - Parameters:
    ///   - asObserver: Counts `body` as an observer whose cancellation the promise waits for
    ///     before it cancels itself when asked from downstream. False for bookkeeping that
    ///     must not keep a promise alive: a chain built on the promise cancels it alone.
    ///   - body: Receives the result; it must be short, or move its work elsewhere.
    @inlinable
    package func whenSettled(
        asObserver: Bool = true, _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        core.register(observing: asObserver) { outcome in body(outcome.result) }
    }
}
