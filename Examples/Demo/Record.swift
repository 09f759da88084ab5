import Foundation

/// Lines written by handlers that run on other queues, read back by the demo.
final class Record: @unchecked Sendable {  // Every access to `lines` holds `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func add(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        lines.append(line)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

/// Names queues, so a handler can say which queue it ran on.
enum QueueName {
    private static let key = DispatchSpecificKey<String>()

    static func make(_ label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
        return queue
    }

    static var current: String { DispatchQueue.getSpecific(key: key) ?? "another queue" }
}

/// Returns once everything queued on `queue` so far has run.
func drain(_ queue: DispatchQueue) async {
    await withCheckedContinuation { done in queue.async { done.resume() } }
}
