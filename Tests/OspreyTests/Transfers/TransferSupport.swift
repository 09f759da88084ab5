import Foundation
import Osprey
import OspreyTesting
import Testing

/// `count` bytes that differ from one offset to the next (so a misplaced range shows).
func patternedData(count: Int, seed: UInt64 = 1) -> Data {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return Data(bytes)
}

/// Counts calls from any thread: which answer a scripted server is giving.
final class Counter: Sendable {
    private let count = Locked(0)

    /// One more; returns the new count (1 for the first call).
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

/// A fresh folder for one test's files; remove it with `cleanUp()`.
struct ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the folder, hidden ones included, sorted.
    var contents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Collects progress reports, in the order they were delivered.
final class ProgressLog: Sendable {
    private typealias Waiter = (id: UUID, bytes: Int64, continuation: CheckedContinuation<Bool, Never>)
    private let reports = Locked<[TransferProgress]>([])
    private let waiters = Locked<[Waiter]>([])

    var all: [TransferProgress] { reports.withLock { $0 } }

    func append(_ report: TransferProgress) {
        reports.withLock { $0.append(report) }
        let ready = waiters.withLock { waiters -> [CheckedContinuation<Bool, Never>] in
            let ready = waiters.filter { $0.bytes <= report.completedBytes }.map(\.continuation)
            waiters.removeAll { $0.bytes <= report.completedBytes }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Returns once a report with at least `bytes` completed has been delivered, or records an
    /// issue after `timeout` seconds: a transfer that ended first (a busy runner can hold a test
    /// past a request's timeout) must fail the test, not hang the whole run.
    @discardableResult
    func waitFor(
        completedBytes bytes: Int64, timeout: TimeInterval = 120,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        let id = UUID()
        let reached = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let already = reports.withLock { $0.contains { $0.completedBytes >= bytes } }
            if already { return continuation.resume(returning: true) }
            waiters.withLock { $0.append((id, bytes, continuation)) }
            // A report may have landed between the check and the registration.
            if reports.withLock({ $0.contains { $0.completedBytes >= bytes } }) {
                take(id)?.resume(returning: true)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                take(id)?.resume(returning: false)
            }
        }
        if !reached {
            Issue.record(
                "no report of \(bytes) bytes within \(timeout) s (got \(all.last?.completedBytes ?? 0))",
                sourceLocation: sourceLocation)
        }
        return reached
    }

    /// Removes the waiter `id`, if it is still waiting.
    private func take(_ id: UUID) -> CheckedContinuation<Bool, Never>? {
        waiters.withLock { waiters in
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index).continuation
        }
    }
}
