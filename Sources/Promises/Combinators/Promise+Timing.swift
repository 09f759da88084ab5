import Dispatch

extension Promise {
    /// A promise with this one's outcome, or rejected with ``PromiseError/timedOut`` if it has not
    /// settled within `seconds`; this promise is then asked to cancel.
    /// - Parameter seconds: The time limit, measured from now.
    /// - Returns: A promise that settles within the limit.
    public func timeout(_ seconds: Double) -> Promise<Value> {
        let upstream = core
        let limitedCore = ForwardStep<Value>(delay: nil).derive(from: core)
        // Weak: once both have settled and gone, the pending timer must not keep them (and
        // their values) alive until it fires. While the limited promise can still be observed,
        // this promise holds it.
        core.defaultQueue.asyncAfter(deadline: .now() + max(0, seconds)) {
            [weak upstream, weak limitedCore] in
            if let limitedCore, limitedCore.settle(.rejected(PromiseError.timedOut)) {
                upstream?.requestCancel()
            }
        }
        return Promise(core: limitedCore)
    }

    /// A promise with this one's outcome, settled `seconds` after this one settles.
    /// Cancellation is passed on at once.
    /// - Parameter seconds: The delay.
    /// - Returns: The delayed promise.
    public func delay(_ seconds: Double) -> Promise<Value> {
        Promise(core: ForwardStep(delay: seconds).derive(from: core))
    }

    /// A promise fulfilled with `value` after `seconds`; cancelling it stops the wait.
    /// - Parameters:
    ///   - seconds: The delay.
    ///   - value: The value to deliver.
    ///   - queue: The default queue of the returned promise.
    /// - Returns: The delayed promise.
    public static func after(
        _ seconds: Double,
        value: Value,
        defaultQueue queue: DispatchQueue? = nil
    ) -> Promise<Value> {
        let (promise, resolver) = pending(defaultQueue: queue)
        promise.defaultQueue.asyncAfter(deadline: .now() + max(0, seconds)) {
            resolver.fulfill(value)
        }
        return promise
    }
}
