import Foundation

/// The example's verdicts: each step checks what it printed, and CI runs the example, so a
/// wrong answer stops it with a non-zero status rather than passing unnoticed.
enum Expect {
    /// Ends the example with `message` unless `condition` holds.
    static func that(_ condition: Bool, _ message: @autoclosure () -> String) {
        if condition { return }
        show("\n✗ \(message())\n")
        exit(1)
    }

    /// Runs a titled part of the example; an error it did not plan for ends the example.
    static func part(_ title: String, _ body: () async throws -> Void) async {
        show("\n\(title)\n")
        do { try await body() } catch { that(false, "unexpected error: \(error)") }
    }
}

/// Writes `text` at once, unbuffered, so that each token shows as it arrives.
func show(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
