import Dispatch
import Foundation
import Promises

/// Carries one request's progress from the transport to the `onProgress` handlers of the promise
/// the API returned: coalesced (at most about 60 reports a second per direction, plus the last),
/// monotonic within an attempt, restarted on a retry, and silent once the promise is settled.
final class ProgressChannel: Sendable {
    /// The shortest time between two reports of one direction.
    static let interval: UInt64 = 16_000_000

    private final class Handler: Sendable {
        let queue: DispatchQueue
        let run: @Sendable (TransferProgress) -> Void
        /// What this handler has been given: a report overtaken on its way is dropped.
        let order = Locked(ProgressOrder())

        init(queue: DispatchQueue, run: @escaping @Sendable (TransferProgress) -> Void) {
            self.queue = queue
            self.run = run
        }
    }

    private struct State {
        var handlers: [Handler] = []
        var attempt = 1
        var latest = ByDirection<TransferProgress>()
        var lastSent = ByDirection<UInt64>()
        /// The latest report not yet sent because it came too soon after the previous one.
        var held = ByDirection<TransferProgress>()
        var isClosed = false
        var isCancelled = false
        /// Whether a flush of the held reports is scheduled.
        var flushScheduled = false
    }

    private let state = Locked(State())
    private let defaultQueue: DispatchQueue
    private let monitor = Locked<(@Sendable (TransferProgress) -> Void)?>(nil)
    private let monitorOrder = Locked(ProgressOrder())

    private let clock: ProgressClock

    init(defaultQueue: DispatchQueue, clock: ProgressClock = .dispatch) {
        self.defaultQueue = defaultQueue
        self.clock = clock
    }

    /// Also tells `monitor` of every report sent (the request's event monitors).
    func setMonitor(_ monitor: @escaping @Sendable (TransferProgress) -> Void) {
        self.monitor.withLock { $0 = monitor }
    }

    /// Adds a handler; it first gets the latest report, if any. Once the transfer has ended
    /// well, a handler added later still gets the last reports, and no more: one added just after
    /// `download` returned may come after a quick transfer ended, and would otherwise see nothing,
    /// not even the end.
    func add(queue: DispatchQueue?, _ run: @escaping @Sendable (TransferProgress) -> Void) {
        let handler = Handler(queue: queue ?? defaultQueue, run: run)
        let latest = state.withLock { state -> [TransferProgress]? in
            guard !state.isCancelled else { return nil }
            if !state.isClosed { state.handlers.append(handler) }
            return state.latest.values
        }
        for report in latest ?? [] { enqueue(report, for: [handler]) }
    }

    /// Starts attempt `number`: its reports start again from zero.
    func startAttempt(_ number: Int) {
        state.withLock { state in
            state.attempt = number
            state.latest = ByDirection()
            state.held = ByDirection()
            state.lastSent = ByDirection()
        }
    }

    /// A report from the transport (any thread). Sent now unless one went out less than
    /// ``interval`` ago; a complete report always goes out.
    func report(_ direction: TransferProgress.Direction, completed: Int64, expected: Int64?) {
        let now = clock.now()
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
        if let flushAt { scheduleFlush(at: flushAt) }
        if let send {
            deliver(send, to: handlers)
        }
    }

    /// Sends the reports held back since the last ones went out.
    private func flushHeld() {
        let now = clock.now()
        let (due, handlers, flushAt) = state.withLock { state -> ([TransferProgress], [Handler], UInt64?) in
            state.flushScheduled = false
            guard !state.isClosed else { return ([], [], nil) }
            var due: [TransferProgress] = []
            var flushAt: UInt64?
            for (direction, report) in state.held.entries {
                // A report may have gone out directly since this flush was scheduled (a late
                // flush, on a busy machine): what is held then waits a full interval after it.
                let next = (state.lastSent[direction] ?? 0) + Self.interval
                if now >= next {
                    due.append(report)
                    state.held[direction] = nil
                    state.lastSent[direction] = now
                } else {
                    flushAt = min(flushAt ?? next, next)
                }
            }
            state.flushScheduled = flushAt != nil
            return (due, state.handlers, flushAt)
        }
        if let flushAt { scheduleFlush(at: flushAt) }
        for report in due { deliver(report, to: handlers) }
    }

    private func scheduleFlush(at uptime: UInt64) {
        clock.schedule(uptime) { [weak self] in self?.flushHeld() }
    }

    /// The transfer ended well: the reports held back go out, then nothing more.
    func finish() {
        let (held, handlers) = state.withLock { state -> ([TransferProgress], [Handler]) in
            guard !state.isClosed else { return ([], []) }
            state.isClosed = true
            defer { state.handlers = [] }
            return (state.held.values, state.handlers)
        }
        for report in held { deliver(report, to: handlers) }
    }

    /// The request failed or was cancelled: no more reports, not even those already queued.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.isCancelled = true
            state.handlers = []
        }
    }

    /// Tells the monitor (unless a newer report reached it first), then queues the report for
    /// each handler.
    private func deliver(_ progress: TransferProgress, to handlers: [Handler]) {
        if let monitor = monitor.withLock({ $0 }), monitorOrder.withLock({ $0.admits(progress) }) {
            monitor(progress)
        }
        enqueue(progress, for: handlers)
    }

    private func enqueue(_ progress: TransferProgress, for handlers: [Handler]) {
        for handler in handlers {
            handler.queue.async { [self] in
                // Queued before the request failed or was cancelled: dropped, none after the end.
                guard !state.withLock({ $0.isCancelled }) else { return }
                guard handler.order.withLock({ $0.admits(progress) }) else { return }
                handler.run(progress)
            }
        }
    }
}

/// The time a channel coalesces by, and how it comes back for what it held: Dispatch's uptime and
/// a shared queue, or a clock a test moves by hand.
struct ProgressClock: Sendable {
    /// Nanoseconds of uptime.
    var now: @Sendable () -> UInt64
    /// Runs the work at (or after) an uptime.
    var schedule: @Sendable (_ uptime: UInt64, _ work: @escaping @Sendable () -> Void) -> Void

    /// Where held reports are sent from once their interval has passed.
    private static let flushQueue = DispatchQueue(label: "osprey.progress.flush")

    static let dispatch = ProgressClock(
        now: { DispatchTime.now().uptimeNanoseconds },
        schedule: { uptime, work in
            flushQueue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: uptime), execute: work)
        })
}

/// Keeps one handler's reports monotonic. Reports are decided under the channel's lock but sent
/// after it, from the transport's thread or from the flush queue, so a report held back and
/// flushed can reach a handler after a newer one sent directly (the last report of a body that
/// arrived just as the flush ran): the older one is dropped rather than shown going backwards.
struct ProgressOrder {
    private var newest = ByDirection<TransferProgress>()

    /// Whether `progress` is newer than everything admitted before in its direction (a later
    /// attempt, or more bytes in the same attempt); if so, it becomes the newest.
    mutating func admits(_ progress: TransferProgress) -> Bool {
        if let seen = newest[progress.direction] {
            let isNewer =
                progress.attempt > seen.attempt
                || (progress.attempt == seen.attempt && progress.completedBytes > seen.completedBytes)
            guard isNewer else { return false }
        }
        newest[progress.direction] = progress
        return true
    }
}
