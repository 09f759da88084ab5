import Foundation
import OspreyTesting

/// Runs `body`, which blocks (a child process, a long replay), on a thread of its own: a test
/// that blocks Swift's cooperative pool (two threads on a 2-core machine) stalls every other
/// test of the run, and their timeouts fire. See `Blocking`.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await Blocking.run(body)
}
