import Dispatch

extension Promise {
    /// Turns a rejection into a value: `recovery` runs on `queue` with the error, and the
    /// returned promise is fulfilled with its result (or rejected with what it throws).
    /// Fulfilment and cancellation pass through.
    /// - Parameters:
    ///   - queue: Where `recovery` runs; the promise's default queue when nil.
    ///   - recovery: Makes a value from the error, or throws.
    /// - Returns: A promise that is fulfilled unless `recovery` throws.
    @inlinable
    @_disfavoredOverload
    public func recover(
        in queue: DispatchQueue? = nil,
        _ recovery: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        recovering(in: queue, .map(recovery))
    }

    /// Turns a rejection into another asynchronous attempt: the returned promise follows the
    /// promise `recovery` returns. Fulfilment and cancellation pass through.
    /// - Parameters:
    ///   - queue: Where `recovery` runs; the promise's default queue when nil.
    ///   - recovery: Starts the fallback from the error, or throws.
    /// - Returns: A promise with the fallback's outcome when this one is rejected.
    @inlinable
    public func recover(
        in queue: DispatchQueue? = nil,
        _ recovery: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        recovering(in: queue, .flatMap(recovery))
    }

    /// Replaces a rejection's error: `transform` runs on `queue` with it.
    /// - Parameters:
    ///   - queue: Where `transform` runs; the promise's default queue when nil.
    ///   - transform: Makes the new error.
    /// - Returns: A promise with the same value or the transformed error.
    @inlinable
    public func mapError(
        in queue: DispatchQueue? = nil,
        _ transform: @escaping @Sendable (any Error) -> any Error
    ) -> Promise<Value> {
        // A recovery that always throws: the new error rejects the promise it returns.
        recovering(in: queue, .map { error throws -> Value in throw transform(error) })
    }

    /// The promise a `RecoveryStep` with `body` settles, on `queue` or the default queue.
    @inlinable
    func recovering(in queue: DispatchQueue?, _ body: Transform<any Error, Value>) -> Promise<Value> {
        Promise(core: RecoveryStep(queue: queue ?? core.defaultQueue, body: body).derive(from: core))
    }
}
