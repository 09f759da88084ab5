import Foundation
import OspreyTesting
import Testing

/// The README's first command, `swift run osprey-demo`, as a test: the demo checks each of its
/// steps itself and exits non-zero when one misbehaves.
@Suite("The demo")
struct DemoTests {
    @Test("osprey-demo runs every step, each behaves, and it exits 0")
    func demo() async throws {
        let (status, output) = try await offPool { try run(productNamed: "osprey-demo") }
        #expect(status == 0, "\(output)")
        let steps = [
            "The README's chain", "An envelope unwrapped", "A typed error body", "A form login",
            "A multipart upload", "A typed Request value", "A busy endpoint, retried",
            "An answer streamed as server-sent events", "A 0.5 s timeout", "A request cancelled",
        ]
        for step in steps {
            #expect(output.contains("▸ \(step)"), "no step \"\(step)\" in:\n\(output)")
        }
        #expect(output.contains("✓ onSuccess ran on demo.ui"))
        #expect(output.contains("✓ APIError.timedOut"))
        #expect(output.contains("✓ the first word came before the answer ended"))
        #expect(!output.contains("✗"), "\(output)")
        #expect(output.hasSuffix("Every step behaved.\n"), "\(output)")
    }
}

/// Runs an executable built beside the test bundle and returns its exit status and output.
func run(productNamed name: String, arguments: [String] = []) throws -> (Int32, String) {
    try ChildProcess.run(productsFolder().appendingPathComponent(name).path, arguments)
}

/// Where SwiftPM put the package's executables: beside the test bundle.
func productsFolder() -> URL {
    #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    #else
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
        return bundle.bundleURL.deletingLastPathComponent()
    #endif
}
