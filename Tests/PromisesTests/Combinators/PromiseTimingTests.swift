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

    @Test("a timeout that settled in time lets go of both promises and the value before its deadline")
    func timeoutReleases() async throws {
        weak var weakToken: Token?
        let queue = DispatchQueue(label: "test.timeout")
        do {
            let (promise, resolver) = Promise<Token>.pending(defaultQueue: queue)
            let token = Token()
            weakToken = token
            let limited = promise.timeout(3600)
            resolver.fulfill(token)
            _ = try await limited.value
        }
        queue.sync {}  // the blocks that settled the promises have returned
        #expect(weakToken == nil)
    }

    @Test("delay keeps the outcome; after fulfils with the value")
    func delayAndAfter() async throws {
        let start = DispatchTime.now()
        #expect(try await Promise(value: 1).delay(0.05).value == 1)
        #expect(seconds(since: start) >= 0.05)
        let rejected = DispatchTime.now()
        #expect(await Promise<Int>(error: TestError(code: 2)).delay(0.05).settledDescription == "rejected(2)")
        #expect(seconds(since: rejected) >= 0.05)
        let after = DispatchTime.now()
        #expect(try await Promise.after(0.05, value: "x").value == "x")
        #expect(seconds(since: after) >= 0.05)
    }

    /// A lower bound only: a delay may end late on a busy machine, never early.
    private func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
