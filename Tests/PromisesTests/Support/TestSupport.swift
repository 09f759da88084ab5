import Dispatch
import Foundation

@testable import Promises

struct TestError: Error, Equatable {
    var code = 1
}

/// An ordered log that handlers on any thread can append to.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])

    func append(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] { events.withLock { $0 } }
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = Locked(0)

    func increment() {
        count.withLock { $0 += 1 }
    }

    var value: Int { count.withLock { $0 } }
}

/// Identifies the queue a handler runs on.
final class QueueMarker: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<String>()
    let name: String

    init(_ name: String, attributes: DispatchQueue.Attributes = []) {
        self.name = name
        queue = DispatchQueue(label: name, attributes: attributes)
        queue.setSpecific(key: key, value: name)
    }

    /// True when called on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == name }
}

/// An object whose deallocation can be observed through a weak reference.
final class Token: Sendable {}

extension Promise {
    /// The outcome as a comparable description, for table-like assertions.
    var settledDescription: String {
        get async {
            switch await result {
            case .success(let value): "fulfilled(\(value))"
            case .failure(let error as TestError): "rejected(\(error.code))"
            case .failure(is CancellationError): "cancelled"
            case .failure(let error): "rejected(\(error))"
            }
        }
    }
}

/// Runs CPU-heavy test work on a thread of its own. Swift Testing runs tests on the few threads
/// of the cooperative pool, and Dispatch's global queues have a thread per core: a long
/// synchronous loop on either (tens of seconds under ThreadSanitizer) stalls the other tests,
/// and timing-sensitive ones then fail.
func offCooperativePool<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
