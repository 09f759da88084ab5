import Dispatch

/// What `timeout` and `delay` put between a promise and the one they return: no handler, only
/// the outcome passed on, at once or after a delay (a cancellation always at once).
struct ForwardStep<Value: Sendable>: HandlerStep {
    typealias Input = Value
    typealias Output = Value

    /// Seconds to wait before passing a value or an error on; nil for at once.
    let delay: Double?

    static func receive(_ outcome: Outcome<Value>, into derived: PromiseCore<Value>) {
        let delay = withStep(in: derived) { $0.pointee.delay }
        if case .cancelled = outcome { return derived.settleSoon(outcome) }
        guard let delay else { return derived.settleSoon(outcome) }
        derived.defaultQueue.asyncAfter(deadline: .now() + max(0, delay)) {
            derived.settle(outcome, fromUpstream: true)
        }
    }
}
