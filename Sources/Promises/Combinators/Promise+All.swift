import Dispatch

extension Promise {
    /// A promise of every value, in the order given; rejected as soon as one is rejected
    /// (fail fast), cancelled as soon as one is cancelled. Cancelling it asks every input to
    /// cancel. An empty array gives an empty array.
    /// - Parameters:
    ///   - promises: The promises to wait for.
    ///   - queue: The default queue of the returned promise.
    /// - Returns: A promise of all the values.
    public static func all(
        _ promises: [Promise<Value>],
        defaultQueue queue: DispatchQueue? = nil
    ) -> Promise<[Value]> {
        let (combined, resolver) = Promise<[Value]>.pending(defaultQueue: queue)
        guard !promises.isEmpty else {
            resolver.fulfill([])
            return combined
        }
        let values = Locked(
            (slots: [Value?](repeating: nil, count: promises.count), remaining: promises.count))
        for (index, promise) in promises.enumerated() {
            promise.core.register(observing: true) { outcome in
                switch outcome {
                case .fulfilled(let value):
                    let complete = values.withLock { state -> [Value]? in
                        state.slots[index] = value
                        state.remaining -= 1
                        return state.remaining == 0 ? state.slots.map { $0! } : nil
                    }
                    if let complete { resolver.fulfill(complete) }
                case .rejected(let error):
                    resolver.reject(error)
                case .cancelled:
                    resolver.cancel()
                }
            }
        }
        resolver.onCancel {
            for promise in promises { promise.core.requestCancel() }
        }
        return combined
    }

    /// A promise of every result, in the order given, once all have settled (cancellation as
    /// `CancellationError`). It is never rejected. Cancelling it asks every input to cancel.
    /// - Parameters:
    ///   - promises: The promises to wait for.
    ///   - queue: The default queue of the returned promise.
    /// - Returns: A promise of all the results.
    public static func allSettled(
        _ promises: [Promise<Value>],
        defaultQueue queue: DispatchQueue? = nil
    ) -> Promise<[Result<Value, any Error>]> {
        let (combined, resolver) = Promise<[Result<Value, any Error>]>.pending(defaultQueue: queue)
        guard !promises.isEmpty else {
            resolver.fulfill([])
            return combined
        }
        let results = Locked(
            (
                slots: [Result<Value, any Error>?](repeating: nil, count: promises.count),
                remaining: promises.count
            )
        )
        for (index, promise) in promises.enumerated() {
            promise.core.register(observing: true) { outcome in
                let complete = results.withLock { state -> [Result<Value, any Error>]? in
                    state.slots[index] = outcome.result
                    state.remaining -= 1
                    return state.remaining == 0 ? state.slots.map { $0! } : nil
                }
                if let complete { resolver.fulfill(complete) }
            }
        }
        resolver.onCancel {
            for promise in promises { promise.core.requestCancel() }
        }
        return combined
    }
}
