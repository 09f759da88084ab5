import Foundation

/// Stops the example with a failure unless `condition` holds: CI runs it, and a line that
/// merely prints something wrong would pass unnoticed.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("✗ \(message())")
    exit(1)
}

/// Runs one part of the example under a title; an error it did not expect stops the example.
func step(_ title: String, _ body: () async throws -> Void) async {
    print(title)
    do {
        try await body()
    } catch {
        check(false, "unexpected error: \(error)")
    }
}
