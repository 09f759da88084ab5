import Dispatch

/// The handler of `recover`, in either form, or of `mapError`: it sees a rejection, while a value
/// and a cancellation pass through without it.
@usableFromInline
struct RecoveryStep<Value: Sendable>: HandlerStep {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    /// What the handler makes of the error.
    @usableFromInline
    enum Body: Sendable {
        /// `recover` returning a value.
        case value(@Sendable (any Error) throws -> Value)
        /// `recover` returning a promise, which the derived promise follows.
        case promise(@Sendable (any Error) throws -> Promise<Value>)
        /// `mapError`.
        case mapError(@Sendable (any Error) -> any Error)
    }

    @usableFromInline let queue: DispatchQueue
    /// Taken when the handler runs, or is skipped, so that what it captures is freed then.
    @usableFromInline var body: Body?
    @usableFromInline var error: (any Error)?

    @inlinable
    init(queue: DispatchQueue, body: Body) {
        self.queue = queue
        self.body = body
    }

    @inlinable
    static func receive(_ outcome: Outcome<Value>, into derived: PromiseCore<Value>) {
        guard case .rejected(let error) = outcome else {
            withStep(in: derived) { _ = $0.pointee.body.take() }
            return derived.settleSoon(outcome)
        }
        let queue = withStep(in: derived) { step in
            step.pointee.error = error
            return step.pointee.queue
        }
        HandlerHop.run(on: queue) { run(derived) }
    }

    @inlinable
    static func run(_ derived: PromiseCore<Value>) {
        let turn = HandlerHop.claim()
        let (error, queue, body) = withStep(in: derived) { step in
            (step.pointee.error.take()!, step.pointee.queue, step.pointee.body.take()!)
        }
        switch body {
        case .value(let recovery):
            let next: Outcome<Value>
            do {
                next = .fulfilled(try recovery(error))
            } catch {
                next = .rejected(error)
            }
            derived.settle(next, afterHandlerIn: turn, on: queue)
        case .promise(let recovery):
            derived.follow(Result { try recovery(error).core }, afterHandlerIn: turn, on: queue)
        case .mapError(let transform):
            derived.settle(.rejected(transform(error)), afterHandlerIn: turn, on: queue)
        }
    }
}
