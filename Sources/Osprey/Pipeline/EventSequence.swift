import Dispatch

/// Runs one request's monitor events one at a time, in the order they were recorded, on
/// whichever thread drains them: a progress report recorded by the transport before the outcome
/// reaches the monitors before it, even though reports hop to the request queue and the outcome
/// may be decided on another thread. No lock is held while an event runs.
final class EventSequence: Sendable {
    private struct State {
        var pending: [@Sendable () -> Void] = []
        var isDraining = false
    }

    private let state = Locked(State())

    /// Records `event` to run after those recorded before it; ``drain()`` runs it.
    func record(_ event: @escaping @Sendable () -> Void) {
        state.withLock { $0.pending.append(event) }
    }

    /// Records `event` and drains at once: it runs on this thread, unless another thread is
    /// draining (then that one runs it, after those recorded before it).
    func run(_ event: @escaping @Sendable () -> Void) {
        record(event)
        drain()
    }

    /// Runs the recorded events in order, unless another thread is doing so.
    func drain() {
        let starts = state.withLock { state -> Bool in
            guard !state.isDraining, !state.pending.isEmpty else { return false }
            state.isDraining = true
            return true
        }
        guard starts else { return }
        while let event = state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.pending.isEmpty else {
                state.isDraining = false
                return nil
            }
            return state.pending.removeFirst()
        }) {
            event()
        }
    }
}
