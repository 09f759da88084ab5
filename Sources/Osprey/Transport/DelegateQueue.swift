import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OperationQueue {
    /// The queue a transport's session delivers its delegate callbacks on: serial, in order.
    static func transportDelegateQueue() -> OperationQueue {
        #if canImport(FoundationNetworking)
            let queue: OperationQueue = DispatchBackedOperationQueue()
        #else
            let queue = OperationQueue()
        #endif
        queue.maxConcurrentOperationCount = 1
        queue.name = "osprey.transport.delegate"
        return queue
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
        // @unchecked: the only stored property is an immutable, thread-safe Dispatch queue.
        private let serial = DispatchQueue(label: "osprey.transport.delegate")

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            serial.async(execute: block)
        }
    }
#endif
