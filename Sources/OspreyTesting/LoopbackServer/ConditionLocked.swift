import Foundation

/// State guarded by a condition variable, so that tests can block until the state changes.
///
/// Same discipline as the package's `Locked`: closures passed in run under the lock and must not
/// call out to user code.
final class ConditionLocked<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched while `condition` is locked.
    private var state: State
    private let condition = NSCondition()

    init(_ initialState: State) {
        state = initialState
    }

    /// Runs `body` with exclusive access, then wakes every waiter.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Blocks until `predicate` holds or `timeout` seconds pass; returns whether it holds.
    func wait(timeout: TimeInterval, until predicate: (State) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(state) {
            if !condition.wait(until: deadline) { return predicate(state) }
        }
        return true
    }
}
