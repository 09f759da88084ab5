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
        let queue = queue ?? core.defaultQueue
        return derive { derived in
            { outcome in
                guard case .rejected(let error) = outcome else { return derived.settleSoon(outcome) }
                HandlerHop.run(on: queue) {
                    let turn = HandlerHop.claim()
                    let next: Outcome<Value>
                    do {
                        next = .fulfilled(try recovery(error))
                    } catch {
                        next = .rejected(error)
                    }
                    derived.settle(next, afterHandlerIn: turn, on: queue)
                }
            }
        }
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
        let queue = queue ?? core.defaultQueue
        return derive { derived in
            { outcome in
                guard case .rejected(let error) = outcome else { return derived.settleSoon(outcome) }
                HandlerHop.run(on: queue) {
                    let turn = HandlerHop.claim()
                    derived.follow(Result { try recovery(error).core }, afterHandlerIn: turn, on: queue)
                }
            }
        }
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
        let queue = queue ?? core.defaultQueue
        return derive { derived in
            { outcome in
                guard case .rejected(let error) = outcome else { return derived.settleSoon(outcome) }
                HandlerHop.run(on: queue) {
                    let turn = HandlerHop.claim()
                    let next = Outcome<Value>.rejected(transform(error))
                    derived.settle(next, afterHandlerIn: turn, on: queue)
                }
            }
        }
    }
}
