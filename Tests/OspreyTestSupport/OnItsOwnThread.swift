import OspreyTesting
import Testing

/// Runs a test, or each test of a suite, on threads of its own instead of Swift's cooperative
/// pool (two threads on a 2-core machine, shared by every async test of the run).
///
/// For tests that wait in a straight line by nature: raw socket reads with timeouts, child
/// processes, files forced to disk. On the pool, each of them held up every other test for as
/// long as it waited, and timing-sensitive tests elsewhere failed under it. Not for CPU-bound
/// tests: on threads of their own they run beside everything else and oversubscribe the cores
/// (CONTRIBUTING, "Tests that block"). Code the test calls with `await` runs on the same
/// threads unless it is isolated to an actor.
package struct OnItsOwnThread: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's scope holds its tests; each test case gets threads of its own.
        guard testCase != nil else { return try await function() }
        let threads = BlockingThreads()
        defer { threads.shutdown() }
        try await withTaskExecutorPreference(threads) { try await function() }
    }
}

extension Trait where Self == OnItsOwnThread {
    /// Runs the test (or every test of the suite) on threads of its own: see ``OnItsOwnThread``.
    package static var onItsOwnThread: Self { Self() }
}
