import Foundation

/// Which download owns the partial files at a path. A download started while an earlier one to
/// the same place is still writing its last bytes (it failed or was cancelled a moment ago, and
/// its writer is flushing) waits for them, so that it resumes from every byte that arrived and
/// never writes into the file beside the other.
enum PartialFileLeases {
    /// For each held path, the downloads waiting for it, in order.
    private static let holders = Locked<[String: [@Sendable () -> Void]]>([:])

    /// Runs `start` once the path is free, at once (on this thread) when it is; otherwise later,
    /// on the thread that releases it.
    static func acquire(_ path: String, then start: @escaping @Sendable () -> Void) {
        let isFree = holders.withLock { holders -> Bool in
            guard holders[path] != nil else {
                holders[path] = []
                return true
            }
            holders[path]?.append(start)
            return false
        }
        if isFree { start() }
    }

    /// Hands the path to the next download waiting for it, or frees it.
    static func release(_ path: String) {
        let next = holders.withLock { holders -> (@Sendable () -> Void)? in
            guard var waiting = holders[path] else { return nil }
            guard !waiting.isEmpty else {
                holders[path] = nil
                return nil
            }
            let first = waiting.removeFirst()
            holders[path] = waiting
            return first
        }
        next?()
    }
}
