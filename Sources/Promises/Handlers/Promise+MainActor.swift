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
    /// Runs `handler` on the main actor (through the main queue) for the outcomes `shouldRun`
    /// accepts, then settles the derived promise; other outcomes pass straight through.
    @inlinable
    func observeOnMainActor(
        when shouldRun: @escaping @Sendable (Outcome<Value>) -> Bool,
        _ handler: @escaping @MainActor (Outcome<Value>) -> Void
    ) -> Promise<Value> {
        derive { derived in
            { outcome in
                guard shouldRun(outcome) else { return derived.settleSoon(outcome) }
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { handler(outcome) }
                    derived.settle(outcome, fromUpstream: true)
                }
            }
        }
    }

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
        observeOnMainActor { outcome in
            if case .fulfilled = outcome { return true }
            return false
        } _: { outcome in
            if case .fulfilled(let value) = outcome { handler(value) }
        }
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
        observeOnMainActor { outcome in
            switch outcome {
            case .fulfilled: false
            case .rejected: true
            case .cancelled: includingCancellation
            }
        } _: { outcome in
            if case .failure(let error) = outcome.result { handler(error) }
        }
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
        observeOnMainActor { _ in
            true
        } _: { _ in
            handler()
        }
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
        derive { derived in
            { outcome in
                guard case .fulfilled(let value) = outcome else {
                    return derived.settleSoon(outcome.failure()!)
                }
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        do {
                            derived.settle(.fulfilled(try transform(value)))
                        } catch {
                            derived.settle(.rejected(error))
                        }
                    }
                }
            }
        }
    }
}
