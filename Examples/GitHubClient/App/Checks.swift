import Foundation
import GitHubClientExample
import Osprey

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

/// The status and GitHub's explanation of a request that must fail with both.
func refusal<Value>(of promise: Promise<Value>) async -> (status: Int, error: GitHubError) {
    let result = await promise.result
    guard case .failure(let error as APIError) = result, let status = error.statusCode,
        let explanation = error.underlyingError as? GitHubError
    else {
        check(false, "expected GitHub to refuse with an error body, got \(result)")
        fatalError("unreachable: check exits")
    }
    return (status, explanation)
}
