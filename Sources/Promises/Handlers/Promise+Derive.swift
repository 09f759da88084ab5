import Dispatch

extension Promise {
    /// Makes the promise a handler returns. `makeCallback` receives the derived promise and
    /// returns the callback that sees this promise's outcome (on the settling thread, outside any
    /// lock); that callback must settle the derived promise exactly once, handing user code to a
    /// queue. Building the callback around the derived promise keeps it to one allocation.
    @inlinable
    func derive<Other>(
        _ makeCallback: (PromiseCore<Other>) -> PromiseCore<Value>.Callback
    ) -> Promise<Other> {
        let derived: PromiseCore<Other> = core.makeDerived()
        if let outcome = core.register(observing: true, making: { makeCallback(derived) }) {
            // Already settled for good: every earlier callback has been handed out, so running
            // this one now keeps registration order. Created and called right here, the
            // callback's context can stay off the heap.
            makeCallback(derived)(outcome)
        }
        return Promise<Other>(core: derived)
    }
}

extension PromiseCore {
    /// Runs `body` on `queue`, then settles this promise with `outcome` (which came from upstream).
    @inlinable
    func settle(
        _ outcome: Outcome<Value>, after body: @escaping @Sendable () -> Void, on queue: DispatchQueue
    ) {
        queue.async {
            body()
            self.settle(outcome, fromUpstream: true)
        }
    }
}
