import Dispatch

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
