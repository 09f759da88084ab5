import Dispatch

extension Promise {
    /// Maps the value: `transform` runs on `queue` when this promise is fulfilled, and the
    /// returned promise is fulfilled with its result, or rejected with the error it throws.
    /// Rejection and cancellation pass through without running it.
    /// - Parameters:
    ///   - queue: Where `transform` runs; the promise's default queue when nil.
    ///   - transform: Turns the value into the next value.
    /// - Returns: A promise of the transformed value.
    @inlinable
    public func then<NewValue>(
        in queue: DispatchQueue? = nil,
        _ transform: @escaping @Sendable (Value) throws -> NewValue
    ) -> Promise<NewValue> {
        let queue = queue ?? core.defaultQueue
        return Promise<NewValue>(core: ValueStep(queue: queue, body: .map(transform)).derive(from: core))
    }

    /// Chains another asynchronous step: `next` runs on `queue` when this promise is fulfilled
    /// and the returned promise follows the promise it returns (cancelling the returned promise
    /// cancels that one). Rejection and cancellation pass through without running it.
    /// - Parameters:
    ///   - queue: Where `next` runs; the promise's default queue when nil.
    ///   - next: Starts the next step from the value, such as `api.getFavorites(of:)`.
    /// - Returns: A promise of the next step's value.
    @inlinable
    public func then<NewValue>(
        in queue: DispatchQueue? = nil,
        _ next: @escaping @Sendable (Value) throws -> Promise<NewValue>
    ) -> Promise<NewValue> {
        let queue = queue ?? core.defaultQueue
        return Promise<NewValue>(core: ValueStep(queue: queue, body: .flatMap(next)).derive(from: core))
    }
}
