import Dispatch

extension Promise {
    /// Runs `attempt` until it is fulfilled, at most `attempts` times, waiting `delay` seconds
    /// between tries (multiplied by `backoff` after each failure) while `shouldRetry` accepts the
    /// error. The returned promise carries the last attempt's outcome. Cancelling it cancels the
    /// attempt in flight and stops further attempts; a cancelled attempt is not retried.
    /// - Parameters:
    ///   - attempts: The maximum number of attempts, at least 1.
    ///   - delay: Seconds before the second attempt.
    ///   - backoff: Factor applied to the delay after each failed attempt.
    ///   - queue: The default queue of the returned promise.
    ///   - shouldRetry: Decides from the error whether another attempt may follow.
    ///   - attempt: Starts one attempt.
    /// - Returns: A promise of the first fulfilled attempt's value.
    public static func retry(
        attempts: Int,
        delay: Double = 0,
        backoff: Double = 1,
        defaultQueue queue: DispatchQueue? = nil,
        while shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true },
        _ attempt: @escaping @Sendable () -> Promise<Value>
    ) -> Promise<Value> {
        let (result, resolver) = pending(defaultQueue: queue)
        let current = Locked<PromiseCore<Value>?>(nil)
        resolver.onCancel {
            current.withLock { $0 }?.requestCancel()
        }
        @Sendable func start(_ number: Int, delay: Double) {
            guard resolver.isPending else { return }
            let core = attempt().core
            current.withLock { $0 = core }
            if !resolver.isPending { core.requestCancel() }
            core.register(observing: true) { outcome in
                guard case .rejected(let error) = outcome, number < attempts else {
                    resolver.core.settle(outcome)
                    return
                }
                // `shouldRetry` is user code: it runs on the queue, never on the settling thread.
                result.defaultQueue.async {
                    guard shouldRetry(error) else {
                        resolver.core.settle(outcome)
                        return
                    }
                    result.defaultQueue.asyncAfter(deadline: .now() + max(0, delay)) {
                        start(number + 1, delay: delay * backoff)
                    }
                }
            }
        }
        start(1, delay: delay)
        return result
    }
}
