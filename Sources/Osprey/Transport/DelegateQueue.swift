import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OperationQueue {
    /// The queue a transport's session delivers its delegate callbacks on: serial, in order;
    /// on Linux it holds FoundationNetworking back through `gate` while a download falls behind.
    static func transportDelegateQueue(gate: DeliveryGate) -> OperationQueue {
        #if canImport(FoundationNetworking)
            let queue: OperationQueue = DispatchBackedOperationQueue(gate: gate)
        #else
            let queue = OperationQueue()
        #endif
        queue.maxConcurrentOperationCount = 1
        queue.name = "osprey.transport.delegate"
        return queue
    }
}

/// Backpressure for downloads on Linux, where FoundationNetworking has none: it reads as fast as
/// the network delivers and queues every piece of body for the delegate, so a download written
/// to a slower disk would gather in memory.
///
/// While a download to disk is in progress (``arm()``), at most ``maximumPendingBlocks``
/// delegate callbacks (about 2 MiB of body) may wait: beyond that, the session's work queue waits
/// in `addOperation` until one has run, which stops libcurl reading the socket, and TCP slows the
/// server down. Nothing that runs on the delegate queue waits for the work queue (tasks are
/// created, resumed and cancelled elsewhere; see ``Exchange``), so the two cannot wait for each
/// other. Without a download the gate never waits: waiting changes FoundationNetworking's timing,
/// and its file uploads have races (libcurl error 43) that timing can expose.
final class DeliveryGate: Sendable {
    static let maximumPendingBlocks = 128

    private let slots = DispatchSemaphore(value: maximumPendingBlocks)
    private let downloads = Locked(0)

    /// A download to disk started.
    func arm() {
        downloads.withLock { $0 += 1 }
    }

    /// A download to disk ended.
    func disarm() {
        downloads.withLock { $0 -= 1 }
    }

    /// Before a callback is queued: waits for room while a download is in progress. Returns
    /// whether it took a slot, to be given back with ``leave()`` once the callback has run.
    func enter() -> Bool {
        guard downloads.withLock({ $0 > 0 }) else { return false }
        slots.wait()
        return true
    }

    /// A callback that took a slot has run.
    func leave() {
        slots.signal()
    }
}

#if canImport(FoundationNetworking)
    /// An operation queue whose blocks run on a serial Dispatch queue.
    ///
    /// FoundationNetworking hands every 16 KiB of a response body to the delegate through
    /// `addOperation(_:)` with a block, and a corelibs `BlockOperation` costs about 4 µs where a
    /// Dispatch hop costs 0.3 µs: 64 operations per MiB made a 1 MiB download a third slower
    /// than URLSession with a completion handler. Blocks keep their order, one at a time, as
    /// with a serial operation queue; that method is the only one the session calls (checked
    /// against the whole test suite), and anything else goes to the real queue.
    private final class DispatchBackedOperationQueue: OperationQueue, @unchecked Sendable {
        // @unchecked: the stored properties are an immutable Dispatch queue and a Sendable gate.
        private let serial = DispatchQueue(label: "osprey.transport.delegate")
        private let gate: DeliveryGate

        init(gate: DeliveryGate) {
            self.gate = gate
            super.init()
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            let tookSlot = gate.enter()
            serial.async { [gate] in
                block()
                if tookSlot { gate.leave() }
            }
        }
    }
#endif
