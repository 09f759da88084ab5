import Foundation

/// Runs the demo's steps one after the other, prints what each showed, and remembers which ones
/// did not behave, so that the demo can exit non-zero.
final class Checklist {
    private(set) var failures: [String] = []
    private var lines: [String] = []
    private var currentStep = ""

    /// Runs one step: its lines are printed under its title, and an error it throws fails it.
    func step(_ title: String, _ body: () async throws -> Void) async {
        currentStep = title
        print("\n▸ \(title)")
        do {
            try await body()
        } catch {
            fail("threw \(error)")
        }
    }

    /// Prints a line of the current step.
    func show(_ line: String) {
        print("  \(line)")
    }

    /// Prints `✓ what` when `condition` holds, else records the step as failed.
    func check(_ condition: Bool, _ what: String) {
        if condition {
            print("  ✓ \(what)")
        } else {
            fail(what)
        }
    }

    private func fail(_ what: String) {
        print("  ✗ \(what)")
        failures.append("\(currentStep): \(what)")
    }
}
