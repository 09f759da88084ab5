import Testing

@testable import Promises

@Suite("retry")
struct PromiseRetryTests {
    @Test("retries until an attempt is fulfilled")
    func retriesUntilSuccess() async throws {
        let attempts = Counter()
        let promise = Promise<Int>.retry(attempts: 5, delay: 0.001) {
            attempts.increment()
            return attempts.value < 3 ? Promise(error: TestError()) : Promise(value: attempts.value)
        }
        #expect(try await promise.value == 3)
        #expect(attempts.value == 3)
    }

    @Test("stops after the last attempt with its error")
    func givesUp() async {
        let attempts = Counter()
        let promise = Promise<Int>.retry(attempts: 3) {
            attempts.increment()
            return Promise(error: TestError(code: attempts.value))
        }
        #expect(await promise.settledDescription == "rejected(3)")
        #expect(attempts.value == 3)
    }

    @Test("does not retry errors the predicate refuses")
    func predicate() async {
        let attempts = Counter()
        let retryable: @Sendable (any Error) -> Bool = { ($0 as? TestError)?.code != 4 }
        let attempt: @Sendable () -> Promise<Int> = {
            attempts.increment()
            return Promise(error: TestError(code: 4))
        }
        let promise = Promise<Int>.retry(attempts: 5, while: retryable, attempt)
        #expect(await promise.settledDescription == "rejected(4)")
        #expect(attempts.value == 1)
    }

    @Test("cancelling during the wait between attempts stops: no further attempt")
    func cancelDuringBackoff() async {
        let attempts = Counter()
        let (failed, failing) = Promise<Void>.pending()
        // An hour between attempts: only the cancellation can end this promise in time.
        let promise = Promise<Int>.retry(attempts: 5, delay: 3600) {
            attempts.increment()
            failing.fulfill(())
            return Promise(error: TestError(code: 1))
        }
        _ = await failed.result
        promise.cancel()
        #expect(await promise.settledDescription == "cancelled")
        #expect(attempts.value == 1)
    }

    @Test("cancelling stops further attempts")
    func cancelStops() async {
        let attempts = Counter()
        let firstAttempt = Promise<Int>.pending()
        let promise = Promise<Int>.retry(attempts: 5) {
            attempts.increment()
            return firstAttempt.promise
        }
        promise.cancel()
        #expect(await firstAttempt.promise.settledDescription == "cancelled")
        #expect(await promise.settledDescription == "cancelled")
        #expect(attempts.value == 1)
    }
}
