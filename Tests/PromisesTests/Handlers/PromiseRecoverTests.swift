import Testing

@testable import Promises

@Suite("recover and mapError")
struct PromiseRecoverTests {
    @Test("recover turns a rejection into a value, and passes a value through")
    func recoverValue() async throws {
        #expect(try await Promise<Int>(error: TestError()).recover { _ in 42 }.value == 42)
        #expect(try await Promise(value: 1).recover { _ in 42 }.value == 1)
    }

    @Test("recover with a promise follows it")
    func recoverPromise() async throws {
        let recovered = Promise<Int>(error: TestError()).recover { _ in Promise<Int>.after(0.01, value: 9) }
        #expect(try await recovered.value == 9)
    }

    @Test("an error thrown in recover rejects with that error")
    func recoverThrows() async {
        let recovered = Promise<Int>(error: TestError(code: 1)).recover { _ -> Int in throw TestError(code: 2)
        }
        #expect(await recovered.settledDescription == "rejected(2)")
    }

    @Test("recover does not catch cancellation")
    func recoverSkipsCancellation() async {
        let (promise, _resolver) = Promise<Int>.pending()
        let recovered = promise.recover { _ in 1 }
        promise.cancel()
        #expect(await recovered.settledDescription == "cancelled")
        withExtendedLifetime(_resolver) {}
    }

    @Test("mapError replaces the error and leaves values alone")
    func mapError() async throws {
        let mapped = Promise<Int>(error: TestError(code: 1)).mapError { _ in TestError(code: 10) }
        #expect(await mapped.settledDescription == "rejected(10)")
        #expect(try await Promise(value: 3).mapError { _ in TestError(code: 10) }.value == 3)
    }
}
