/// Errors the promise combinators produce themselves.
public enum PromiseError: Error, Sendable {
    /// `timeout(_:)` ran out before the promise settled.
    case timedOut
    /// `any(_:)` had no promise fulfilled: it carries the errors of those that failed, in the
    /// order given (`CancellationError` for cancelled ones); empty when given no promises.
    case noneFulfilled(errors: [any Error])
}
