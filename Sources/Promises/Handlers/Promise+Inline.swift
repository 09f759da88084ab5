import Dispatch

extension Promise {
    /// Runs `body` on the thread that settles the promise, or here and now when it already is:
    /// no queue hop. For the package's own pipeline, which decides itself where its work goes
    /// next; user handlers never run inline (see the threading model).
    /// - Parameter body: Receives the result; it must be short, or move its work elsewhere.
    package func whenSettled(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        core.register(observing: true) { outcome in body(outcome.result) }
    }
}
