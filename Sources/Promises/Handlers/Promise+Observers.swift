import Dispatch

extension Promise {
    /// Runs `handler` on `queue` when the promise is fulfilled.
    /// - Parameters:
    ///   - queue: Where `handler` runs; the promise's default queue when nil.
    ///   - handler: Receives the value.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func onSuccess(
        in queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> Promise<Value> {
        observing(in: queue, .success(handler))
    }

    /// Runs `handler` on `queue` when the promise is rejected (and, if asked, when cancelled,
    /// with `CancellationError`).
    /// - Parameters:
    ///   - queue: Where `handler` runs; the promise's default queue when nil.
    ///   - includingCancellation: Also run for cancellation. Off by default: a cancelled request
    ///     is usually not an error to show.
    ///   - handler: Receives the error.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func onError(
        in queue: DispatchQueue? = nil,
        includingCancellation: Bool = false,
        _ handler: @escaping @Sendable (any Error) -> Void
    ) -> Promise<Value> {
        observing(in: queue, .error(includingCancellation: includingCancellation, handler))
    }

    /// Runs `handler` on `queue` when the promise is cancelled.
    /// - Parameters:
    ///   - queue: Where `handler` runs; the promise's default queue when nil.
    ///   - handler: Runs once on cancellation.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func onCancel(
        in queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        observing(in: queue, .cancel(handler))
    }

    /// Runs `handler` on `queue` once the promise settles, whatever the outcome.
    /// - Parameters:
    ///   - queue: Where `handler` runs; the promise's default queue when nil.
    ///   - handler: Runs once.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func finally(
        in queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        observing(in: queue, .finally(handler))
    }

    /// Runs `handler` on `queue` with the result once the promise settles (cancellation as
    /// `CancellationError`).
    /// - Parameters:
    ///   - queue: Where `handler` runs; the promise's default queue when nil.
    ///   - handler: Receives the result.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func onResult(
        in queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        observing(in: queue, .result(handler))
    }

    /// The promise an `ObserverStep` with `body` settles, on `queue` or the default queue.
    @inlinable
    func observing(in queue: DispatchQueue?, _ body: ObserverStep<Value>.Body) -> Promise<Value> {
        Promise(core: ObserverStep(queue: queue ?? core.defaultQueue, body: body).derive(from: core))
    }
}
