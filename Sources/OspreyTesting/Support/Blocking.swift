import Foundation

/// Where the test suites run work that blocks a thread: a child process, a raw socket read, a
/// condition wait, a file forced to disk.
///
/// Swift's cooperative pool has one thread per core, two on the machines CI uses. A test that
/// blocks one of them, however briefly, holds up every async test of the run, and their
/// timeouts fire for no fault of theirs. Blocking work therefore runs on a thread of its own,
/// and the helpers that block are marked `noasync`, so that async code can only reach them
/// through here.
package enum Blocking {
    /// The name of the threads `run(_:)` starts (a new thread otherwise carries its
    /// creator's name, which is the cooperative pool's).
    static let threadName = "osprey-blocking"

    /// Runs `body` on a new thread and waits for it without holding a thread of the pool.
    ///
    /// Not Dispatch's global queues either: their threads deliver URLSession's callbacks and
    /// run the code under test, and Linux's Dispatch adds threads only slowly when they block.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            Thread {
                DedicatedThread.mark(.blocking, name: threadName)
                done.resume(with: Result { try body() })
            }.start()
        }
    }

    /// Runs `body`, which cannot fail, on a new thread; see `run(_:)`.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            Thread {
                DedicatedThread.mark(.blocking, name: threadName)
                done.resume(returning: body())
            }.start()
        }
    }
}
