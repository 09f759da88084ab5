import Foundation
import OspreyTesting
import Testing

/// A stream read in an executable's top-level code (`main.swift`), where a new user's first
/// chat client lives: OspreyStreamProbe, built beside this test bundle, runs each loop and says
/// whether the server saw the client hang up.
///
/// Swift 6.3 never destroys a `for` loop's iterator in top-level code that awaits (its
/// AllocBoxToStack pass drops the destroy of a top-level `var` in an async `main`; compiling with
/// `-Xllvm -sil-disable-pass=allocbox-to-stack` releases it), so a plain `break` there cannot
/// reach the library. The ways out that need no help from the compiler are tested to work there;
/// a plain `break` is tested to stop the transfer whenever the compiler releases the iterator,
/// which the probe checks with a canary loop in the same top-level code.
@Suite("Streaming: a loop in top-level code stops the transfer when it ends", .serialized)
struct TopLevelLoopTests {
    struct Report: Decodable {
        var scenario: String
        var hungUp: Bool
        var writtenAfter: Int
        var canaryReleased: Bool
    }

    @Test(
        "cancel() before break, a [DONE] sentinel, and a loop in a function stop the transfer",
        arguments: ["cancel-break", "sentinel", "function"])
    func stops(scenario: String) async throws {
        let report = try await offPool { try Self.run(scenario) }
        #expect(report.hungUp, "the server kept writing: \(report.writtenAfter) more events")
    }

    @Test("break alone stops the transfer whenever the compiler releases the loop's iterator")
    func plainBreak() async throws {
        let report = try await offPool { try Self.run("break") }
        // Swift 6.3.1: the canary's iterator is never released, and the transfer goes on (the
        // README and the streaming article say so, and show the ways out above). A compiler
        // that releases it must see the transfer stop.
        #expect(
            report.hungUp == report.canaryReleased,
            "iterator released: \(report.canaryReleased), server saw the hang-up: \(report.hungUp)")
    }

    /// Runs the probe and decodes its report.
    private static func run(_ scenario: String) throws -> Report {
        let (status, output) = try ChildProcess.run(
            productsFolder().appendingPathComponent("OspreyStreamProbe").path, [scenario],
            standardError: .discard)
        try #require(status == 0, "the probe failed: \(output)")
        return try JSONDecoder().decode(Report.self, from: Data(output.utf8))
    }
}
