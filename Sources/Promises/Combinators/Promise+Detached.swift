import Dispatch

extension Promise {
    /// A promise with this promise's outcome that can be cancelled without cancelling this one:
    /// for waiting on work that others share, such as a token refresh or a cached fetch.
    ///
    /// ```swift
    /// // One refresh for everyone; a screen that goes away stops waiting, nothing more.
    /// let token = sharedRefresh.detached()
    /// screenTasks.append(token)
    /// ```
    ///
    /// Cancelling the returned promise settles it as cancelled at once; this promise goes on and
    /// its outcome reaches its other observers. If this promise is cancelled, so is the returned
    /// one.
    /// - Returns: A new promise with the same default queue.
    public func detached() -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending(defaultQueue: core.defaultQueue)
        // The observer below is never cancelled, so this promise keeps an observer that does not
        // cancel it: cancelling the returned promise cannot travel upwards.
        _ = onResult { [self] result in
            if isCancelled { resolver.cancel() } else { resolver.resolve(result) }
        }
        return promise
    }
}
