import Dispatch

/// Names the main actor as the place a handler runs: `.onSuccess(in: .main, updateProducts)`
/// with a `@MainActor` function.
///
/// The overloads taking it (or a closure written `{ @MainActor value in … }`) run the handler on
/// the main actor, so it may touch main-actor state; a plain closure given a `DispatchQueue` is
/// `@Sendable` and nonisolated, so touching main-actor state there does not compile.
/// On Linux the main queue runs only while something services it (`dispatchMain()`, a run loop,
/// or an `async` main); prefer a `DispatchQueue` for handlers in command-line tools and servers.
public enum MainActorQueue: Sendable {
    /// The main actor (the main queue).
    case main
}

extension Promise {
    /// Runs a main-actor `handler` when the promise is fulfilled.
    /// - Parameters:
    ///   - queue: `.main`.
    ///   - handler: Receives the value on the main actor.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func onSuccess(
        in queue: MainActorQueue = .main,
        _ handler: @escaping @MainActor (Value) -> Void
    ) -> Promise<Value> {
        // Handlers on the main queue run on the main actor: the step's queue says where.
        observing(in: .main, .success { value in MainActor.assumeIsolated { handler(value) } })
    }

    /// Runs a main-actor `handler` when the promise is rejected (and, if asked, cancelled).
    /// - Parameters:
    ///   - queue: `.main`.
    ///   - includingCancellation: Also run for cancellation, with `CancellationError`.
    ///   - handler: Receives the error on the main actor.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func onError(
        in queue: MainActorQueue = .main,
        includingCancellation: Bool = false,
        _ handler: @escaping @MainActor (any Error) -> Void
    ) -> Promise<Value> {
        observing(
            in: .main,
            .error(includingCancellation: includingCancellation) { error in
                MainActor.assumeIsolated { handler(error) }
            })
    }

    /// Runs a main-actor `handler` once the promise settles, whatever the outcome.
    /// - Parameters:
    ///   - queue: `.main`.
    ///   - handler: Runs once on the main actor.
    /// - Returns: A promise with the same outcome, settled after `handler` ran.
    @inlinable
    @discardableResult
    public func finally(
        in queue: MainActorQueue = .main,
        _ handler: @escaping @MainActor () -> Void
    ) -> Promise<Value> {
        observing(in: .main, .finally { MainActor.assumeIsolated { handler() } })
    }

    /// Maps the value on the main actor.
    /// - Parameters:
    ///   - queue: `.main`.
    ///   - transform: Turns the value into the next value, on the main actor.
    /// - Returns: A promise of the transformed value.
    @inlinable
    public func then<NewValue>(
        in queue: MainActorQueue = .main,
        _ transform: @escaping @MainActor (Value) throws -> NewValue
    ) -> Promise<NewValue> {
        let step = ValueStep<Value, NewValue>(
            queue: .main, body: .map { value in try MainActor.assumeIsolated { try transform(value) } })
        return Promise<NewValue>(core: step.derive(from: core))
    }
}
