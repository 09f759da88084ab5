import Dispatch

/// The handler of `recover`, in either form, or of `mapError`: it sees a rejection's error, while
/// a value and a cancellation pass through without it.
@usableFromInline
struct RecoveryStep<Value: Sendable>: HandlerStep {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline let queue: DispatchQueue
    /// Taken when the handler runs, or is skipped, so that what it captures is freed then.
    @usableFromInline var body: Transform<any Error, Value>?
    @usableFromInline var error: (any Error)?

    @inlinable
    init(queue: DispatchQueue, body: Transform<any Error, Value>) {
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
        body.apply(to: error, settling: derived, afterHandlerIn: turn, on: queue)
    }
}
