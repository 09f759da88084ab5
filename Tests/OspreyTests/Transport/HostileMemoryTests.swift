import Foundation
import Osprey
import OspreyTesting
import Testing

/// A decompression bomb and an endless body against a size limit, each in a process of its own
/// (OspreyMemoryProbe, built beside this test bundle) so that its peak memory is measured alone.
///
/// Both used to fill memory: the size error cancelled the task on the session's delegate queue,
/// and FoundationNetworking's `cancel()` waits for its work queue, which was busy inflating or
/// reading, while every received chunk queued up behind the blocked delegate queue (1.1 GiB
/// peak for a 1 MiB limit, 4 to 6 s to fail).
@Suite("Transport: bounded memory under bombs and floods", .serialized)
struct HostileMemoryTests {
    struct Report: Decodable {
        var outcome: String
        var seconds: Double
        var baselineBytes: Int
        var peakBytes: Int
    }

    @Test(
        "the size limit stops a 1 GiB gzip bomb and an endless body at once, within the limit plus 64 MiB",
        arguments: [("bomb", 1 << 20), ("flood", 2 << 20)])
    func bounded(scenario: String, limit: Int) async throws {
        #if os(Linux)
            let report = try await offPool { try Self.run(scenario, limit: limit) }
            #expect(report.outcome == "responseTooLarge")
            let growth = report.peakBytes - report.baselineBytes
            #expect(growth < limit + 64 << 20, "peak grew by \(growth >> 20) MiB in \(report.seconds) s")
            // Not a speed check (it takes well under a second): before the fix a flood took 50 to
            // 100 s to fail and a bomb 4 to 6 s, and this bound tells a hang from a slow machine.
            #expect(report.seconds < 15, "took \(report.seconds) s")
        #endif
    }

    /// Runs the probe and decodes its report.
    private static func run(_ scenario: String, limit: Int) throws -> Report {
        let (status, output) = try ChildProcess.run(
            productsFolder().appendingPathComponent("OspreyMemoryProbe").path, [scenario, String(limit)],
            standardError: .discard)
        try #require(status == 0, "the probe failed: \(output)")
        return try JSONDecoder().decode(Report.self, from: Data(output.utf8))
    }
}
