import Dispatch
import Foundation
import Promises

/// Carries one request's progress from the transport to the `onProgress` handlers of the promise
/// the API returned: coalesced (at most about 60 reports a second per direction, plus the last),
/// monotonic within an attempt, restarted on a retry, and silent once the promise is settled.
final class ProgressChannel: Sendable {
    /// The shortest time between two reports of one direction.
    static let interval: UInt64 = 16_000_000

    private struct Handler {
        var queue: DispatchQueue
        var run: @Sendable (TransferProgress) -> Void
    }

    private struct State {
        var handlers: [Handler] = []
        var attempt = 1
        var latest: [TransferProgress.Direction: TransferProgress] = [:]
        var lastSent: [TransferProgress.Direction: UInt64] = [:]
        /// The latest report not yet sent because it came too soon after the previous one.
        var held: [TransferProgress.Direction: TransferProgress] = [:]
        var isClosed = false
        var isCancelled = false
        /// Whether a flush of the held reports is scheduled.
        var flushScheduled = false
    }

    /// Where held reports are sent from once their interval has passed.
    private static let flushQueue = DispatchQueue(label: "osprey.progress.flush")

    private let state = Locked(State())
    private let defaultQueue: DispatchQueue
    private let monitor = Locked<(@Sendable (TransferProgress) -> Void)?>(nil)

    init(defaultQueue: DispatchQueue) {
        self.defaultQueue = defaultQueue
    }

    /// Also tells `monitor` of every report sent (the request's event monitors).
    func setMonitor(_ monitor: @escaping @Sendable (TransferProgress) -> Void) {
        self.monitor.withLock { $0 = monitor }
    }

    /// Adds a handler; it first gets the latest report, if any.
    func add(queue: DispatchQueue?, _ run: @escaping @Sendable (TransferProgress) -> Void) {
        let handler = Handler(queue: queue ?? defaultQueue, run: run)
        let latest = state.withLock { state -> [TransferProgress]? in
            guard !state.isClosed else { return nil }
            state.handlers.append(handler)
            return Array(state.latest.values)
        }
        for report in latest ?? [] { deliver(report, to: [handler]) }
    }

    /// Starts attempt `number`: its reports start again from zero.
    func startAttempt(_ number: Int) {
        state.withLock { state in
            state.attempt = number
            state.latest = [:]
            state.held = [:]
            state.lastSent = [:]
        }
    }

    /// A report from the transport (any thread). Sent now unless one went out less than
    /// ``interval`` ago; a complete report always goes out.
    func report(_ direction: TransferProgress.Direction, completed: Int64, expected: Int64?) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (send, handlers, flushAt) = state.withLock { state -> (TransferProgress?, [Handler], UInt64?) in
            guard !state.isClosed else { return (nil, [], nil) }
            var progress = TransferProgress(
                direction: direction, completedBytes: completed, expectedBytes: expected,
                attempt: state.attempt)
            if let previous = state.latest[direction], previous.completedBytes > completed {
                progress.completedBytes = previous.completedBytes  // never backwards within an attempt
            }
            if state.latest[direction] == progress { return (nil, [], nil) }
            state.latest[direction] = progress
            let last = state.lastSent[direction] ?? 0
            guard progress.isComplete || now >= last + Self.interval else {
                // Too soon: held, and sent when the interval has passed unless a newer one is.
                state.held[direction] = progress
                guard !state.flushScheduled else { return (nil, [], nil) }
                state.flushScheduled = true
                return (nil, [], last + Self.interval)
            }
            state.held[direction] = nil
            state.lastSent[direction] = now
            return (progress, state.handlers, nil)
        }
        if let flushAt {
            Self.flushQueue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: flushAt)) { [weak self] in
                self?.flushHeld()
            }
        }
        if let send {
            monitor.withLock { $0 }?(send)
            deliver(send, to: handlers)
        }
    }

    /// Sends the reports held back since the last ones went out.
    private func flushHeld() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (held, handlers) = state.withLock { state -> ([TransferProgress], [Handler]) in
            state.flushScheduled = false
            guard !state.isClosed else { return ([], []) }
            let held = Array(state.held.values)
            state.held = [:]
            for report in held { state.lastSent[report.direction] = now }
            return (held, state.handlers)
        }
        let monitor = monitor.withLock { $0 }
        for report in held {
            monitor?(report)
            deliver(report, to: handlers)
        }
    }

    /// The transfer ended well: the reports held back go out, then nothing more.
    func finish() {
        let (held, handlers) = state.withLock { state -> ([TransferProgress], [Handler]) in
            guard !state.isClosed else { return ([], []) }
            state.isClosed = true
            defer { state.handlers = [] }
            return (Array(state.held.values), state.handlers)
        }
        let monitor = monitor.withLock { $0 }
        for report in held {
            monitor?(report)
            deliver(report, to: handlers)
        }
    }

    /// The request failed or was cancelled: no more reports, not even those already queued.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.isCancelled = true
            state.handlers = []
        }
    }

    private func deliver(_ progress: TransferProgress, to handlers: [Handler]) {
        for handler in handlers {
            handler.queue.async { [self] in
                // Queued before the request failed or was cancelled: dropped, none after the end.
                guard !state.withLock({ $0.isCancelled }) else { return }
                handler.run(progress)
            }
        }
    }
}

/// The channel of each request in flight, by its promise: how `onProgress` finds it.
enum ProgressChannels {
    private static let channels = Locked([ObjectIdentifier: ProgressChannel]())

    static func register(_ channel: ProgressChannel, for identity: ObjectIdentifier) {
        channels.withLock { $0[identity] = channel }
    }

    static func channel(for identity: ObjectIdentifier) -> ProgressChannel? {
        channels.withLock { $0[identity] }
    }

    static func remove(_ identity: ObjectIdentifier) {
        channels.withLock { _ = $0.removeValue(forKey: identity) }
    }
}
