import Foundation

/// Starts the test suites' child processes one at a time. Foundation's `Process.run()` on Linux
/// crashed once (a bad memory copy inside it) while suites running side by side started
/// processes from several threads at once; only the start is serialised, not the waiting.
package enum ProcessLaunch {
    private static let lock = NSLock()

    /// Runs `process`, after any other start in progress has finished.
    package static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
