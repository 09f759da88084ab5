import Dispatch
import Testing

@testable import Promises

@Suite("timeout, delay, after")
struct PromiseTimingTests {
    @Test("timeout rejects a promise that does not settle in time and asks it to cancel")
    func timesOut() async {
        let (slow, resolver) = Promise<Int>.pending()
        let cancelled = Promise<Void>.pending()
        resolver.onCancel { cancelled.resolver.fulfill(()) }
        let limited = slow.timeout(0.05)
        guard case .failure(PromiseError.timedOut) = await limited.result else {
            Issue.record("expected timedOut")
            return
        }
        _ = await cancelled.promise.result
        #expect(slow.isCancelled)
    }

    @Test("timeout keeps the outcome of a promise that settles in time")
    func inTime() async throws {
        #expect(try await Promise(value: 3).timeout(60).value == 3)
    }

    @Test("delay keeps the outcome; after fulfils with the value")
    func delayAndAfter() async throws {
        #expect(try await Promise(value: 1).delay(0.01).value == 1)
        #expect(await Promise<Int>(error: TestError(code: 2)).delay(0.01).settledDescription == "rejected(2)")
        #expect(try await Promise.after(0.01, value: "x").value == "x")
    }
}
