import Foundation

/// Runs `body`, which blocks (a child process, a long replay), on a Dispatch thread: a test that
/// blocks Swift's cooperative pool (two threads on a 2-core machine) stalls every other test of
/// the run, and their timeouts fire.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { done in
        DispatchQueue.global().async { done.resume(with: Result { try body() }) }
    }
}
