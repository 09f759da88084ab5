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
    /// Settles this promise from the work of a handler on `queue`, once its user code returned:
    /// a handler this hands to the same queue runs next in the same turn (see `HandlerHop`).
    /// - Parameter turn: What `HandlerHop.claim()` returned when the work started.
    @inlinable
    func settle(
        _ outcome: Outcome<Value>,
        afterHandlerIn turn: UnsafeMutablePointer<HandlerHop.Turn>?,
        on queue: DispatchQueue,
        fromUpstream: Bool = false
    ) {
        HandlerHop.finish(turn, on: queue) { self.settle(outcome, fromUpstream: fromUpstream) }
    }

    /// Follows the promise a handler on `queue` returned, or takes the error it threw, once the
    /// handler's code returned (see `HandlerHop`).
    /// - Parameter turn: What `HandlerHop.claim()` returned when the work started.
    @inlinable
    func follow(
        _ made: Result<PromiseCore<Value>, any Error>,
        afterHandlerIn turn: UnsafeMutablePointer<HandlerHop.Turn>?,
        on queue: DispatchQueue
    ) {
        HandlerHop.finish(turn, on: queue) {
            switch made {
            case .success(let upstream): self.follow(upstream)
            case .failure(let error): self.settle(.rejected(error))
            }
        }
    }
}
