import Dispatch

/// The handler of `then` (either form) as one object: the callback its upstream promise calls
/// and the work handed to the handler's queue. A closure that captures only this object uses it
/// as its context, so a step allocates nothing beyond itself and its derived promise.
///
/// `value` is written once, by the settling thread before the work is handed to the queue, and
/// read by the work on the queue: the hand-over (dispatch, or the turn's loop on one thread)
/// orders the two.
@usableFromInline
final class ValueStep<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    /// What the handler does with the value.
    @usableFromInline
    enum Body: Sendable {
        /// `then` returning a value.
        case map(@Sendable (Input) throws -> Output)
        /// `then` returning a promise, which the derived promise follows.
        case flatMap(@Sendable (Input) throws -> Promise<Output>)
    }

    @usableFromInline let derived: PromiseCore<Output>
    @usableFromInline let queue: DispatchQueue
    @usableFromInline let body: Body
    @usableFromInline var value: Input?

    @inlinable
    init(derived: PromiseCore<Output>, queue: DispatchQueue, body: Body) {
        self.derived = derived
        self.queue = queue
        self.body = body
    }

    @inlinable
    func receive(_ outcome: Outcome<Input>) {
        guard case .fulfilled(let value) = outcome else { return derived.settleSoon(outcome.failure()!) }
        self.value = value
        HandlerHop.run(on: queue) { self.run() }
    }

    @inlinable
    func run() {
        let turn = HandlerHop.claim()
        let value = self.value.take()!
        switch body {
        case .map(let transform):
            let next: Outcome<Output>
            do {
                next = .fulfilled(try transform(value))
            } catch {
                next = .rejected(error)
            }
            derived.settle(next, afterHandlerIn: turn, on: queue)
        case .flatMap(let next):
            derived.follow(Result { try next(value).core }, afterHandlerIn: turn, on: queue)
        }
    }
}

/// The handler of `onSuccess` as one object (see `ValueStep`).
@usableFromInline
final class SuccessStep<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let derived: PromiseCore<Value>
    @usableFromInline let queue: DispatchQueue
    @usableFromInline let handler: @Sendable (Value) -> Void
    @usableFromInline var outcome: Outcome<Value>?

    @inlinable
    init(derived: PromiseCore<Value>, queue: DispatchQueue, handler: @escaping @Sendable (Value) -> Void) {
        self.derived = derived
        self.queue = queue
        self.handler = handler
    }

    @inlinable
    func receive(_ outcome: Outcome<Value>) {
        guard case .fulfilled = outcome else { return derived.settleSoon(outcome) }
        self.outcome = outcome
        HandlerHop.run(on: queue) { self.run() }
    }

    @inlinable
    func run() {
        let turn = HandlerHop.claim()
        let outcome = self.outcome.take()!
        if case .fulfilled(let value) = outcome { handler(value) }
        derived.settle(outcome, afterHandlerIn: turn, on: queue, fromUpstream: true)
    }
}
