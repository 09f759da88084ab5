import Foundation
import Osprey
import OspreyTesting
import XCTest

/// The Papyrus README's "Testing" snippets: a hand-written mock, then `@Mock`.
enum HandWritten {
    @API
    protocol GitHub {
        @GET("/users/:username/repos")
        func getRepositories(username: String) async throws -> [Repository]
    }

    struct GitHubMock: GitHub {
        func getRepositories(username: String) async throws -> [Repository] {
            return [
                Repository(name: "papyrus"),
                Repository(name: "alchemy"),
                Repository(name: "fusion"),
            ]
        }
    }

    @API
    protocol Wrapped {
        @POST("/things/:id")
        func update(id: Path<Int>, token: Header<String>, name: Field<String>, limit: Query<Int>) async throws
    }

    /// Roles are the plain types: a conformance need not repeat them.
    struct WrappedMock: Wrapped {
        func update(id: Int, token: String, name: String, limit: Int) async throws {}
    }
}

enum Generated {
    @API  // Generates `GitHubAPI: GitHub`
    @Mock  // Generates `GitHubMock: GitHub`
    protocol GitHub {
        @GET("/users/:username/repos")
        func getRepositories(username: String) async throws -> [Repository]
    }
}

/// What the README's tests exercise: a service that counts a user's repositories. Its method is
/// synchronous, as the README calls it, so it waits for the asynchronous call on a task.
struct MyService: Sendable {
    let count: @Sendable (String) async throws -> Int

    // The README's protocols are not Sendable; the service uses each from one task at a time.
    init(github: any HandWritten.GitHub) {
        nonisolated(unsafe) let github = github
        count = { try await github.getRepositories(username: $0).count }
    }

    init(github: any Generated.GitHub) {
        nonisolated(unsafe) let github = github
        count = { try await github.getRepositories(username: $0).count }
    }

    func countRepositories(of username: String) -> Int {
        let result = Locked(-1)
        let done = DispatchSemaphore(value: 0)
        let count = count
        Task.detached {
            let value = (try? await count(username)) ?? -1
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}

final class ReadmeTestingTests: XCTestCase {
    func testCounting() {
        let mock: HandWritten.GitHub = HandWritten.GitHubMock()
        let service = MyService(github: mock)
        let count = service.countRepositories(of: "joshuawright11")
        XCTAssertEqual(count, 3)
    }

    func testCountingWithMockMacro() {
        let mock = Generated.GitHubMock()
        mock.mockGetRepositories { username in
            XCTAssertEqual(username, "joshuawright11")
            return [
                Repository(name: "papyrus"),
                Repository(name: "alchemy"),
            ]
        }

        let service = MyService(github: mock)
        let count = service.countRepositories(of: "joshuawright11")
        XCTAssertEqual(count, 2)
    }

    func testWrappedRolesNeedNotBeRepeated() async throws {
        let mock: HandWritten.Wrapped = HandWritten.WrappedMock()
        try await mock.update(id: 1, token: "t", name: "n", limit: 2)
    }

    func testAnUnmockedRequirementFailsWithAClearError() async {
        let mock = Generated.GitHubMock()
        do {
            _ = try await mock.getRepositories(username: "x")
            XCTFail("expected MockError.notMocked")
        } catch {
            XCTAssertEqual(error as? MockError, .notMocked("getRepositories(username:)"))
            XCTAssertTrue("\(error)".contains("getRepositories(username:) was called"))
        }
    }
}
