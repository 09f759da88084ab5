import Dispatch

extension Promise {
    /// A promise that settles like the first of `promises` to settle. The others are asked to
    /// cancel once it has, and so is every input when the returned promise is cancelled.
    /// Given no promises, it is cancelled.
    /// - Parameters:
    ///   - promises: The competing promises.
    ///   - queue: The default queue of the returned promise.
    /// - Returns: A promise with the first outcome.
    public static func race(
        _ promises: [Promise<Value>],
        defaultQueue queue: DispatchQueue? = nil
    ) -> Promise<Value> {
        let (winner, resolver) = Promise.pending(defaultQueue: queue)
        for promise in promises {
            promise.core.register(observing: true) { outcome in
                resolver.core.settle(outcome)
            }
        }
        let cancelAll: @Sendable () -> Void = {
            for promise in promises { promise.core.requestCancel() }
        }
        resolver.onCancel(cancelAll)
        winner.core.register(observing: false) { outcome in
            if case .cancelled = outcome { return }
            cancelAll()
        }
        if promises.isEmpty { resolver.cancel() }
        return winner
    }

    /// A promise of the first value among `promises`; rejected with
    /// ``PromiseError/noneFulfilled(errors:)`` if none is fulfilled. The others are asked to
    /// cancel once one is fulfilled, and so is every input when the returned promise is cancelled.
    /// - Parameters:
    ///   - promises: The competing promises.
    ///   - queue: The default queue of the returned promise.
    /// - Returns: A promise of the first value.
    public static func any(
        _ promises: [Promise<Value>],
        defaultQueue queue: DispatchQueue? = nil
    ) -> Promise<Value> {
        let (first, resolver) = Promise.pending(defaultQueue: queue)
        guard !promises.isEmpty else {
            resolver.reject(PromiseError.noneFulfilled(errors: []))
            return first
        }
        let failures = Locked(
            (errors: [(any Error)?](repeating: nil, count: promises.count), remaining: promises.count))
        for (index, promise) in promises.enumerated() {
            promise.core.register(observing: true) { outcome in
                if case .fulfilled(let value) = outcome {
                    resolver.fulfill(value)
                    return
                }
                let allFailed = failures.withLock { state -> [any Error]? in
                    state.errors[index] = outcome.result.failure
                    state.remaining -= 1
                    return state.remaining == 0 ? state.errors.compactMap { $0 } : nil
                }
                if let allFailed { resolver.reject(PromiseError.noneFulfilled(errors: allFailed)) }
            }
        }
        let cancelAll: @Sendable () -> Void = {
            for promise in promises { promise.core.requestCancel() }
        }
        resolver.onCancel(cancelAll)
        first.core.register(observing: false) { outcome in
            if case .fulfilled = outcome { cancelAll() }
        }
        return first
    }
}

extension Result {
    @usableFromInline
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
