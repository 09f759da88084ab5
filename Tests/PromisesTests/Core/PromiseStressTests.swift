import Dispatch
import Testing

@testable import Promises

@Suite("Stress: exactly once under races, long chains without stack overflow")
struct PromiseStressTests {
    @Test("100,000 promises raced by fulfil, reject and cancel from 2 threads: each handler runs once")
    func racingSettlement() async throws {
        let count = 100_000
        let handlerRuns = Counter()
        let fulfilled = Counter()
        let observed = await offCooperativePool {
            let pairs = (0..<count).map { _ in Promise<Int>.pending() }
            let observed = pairs.map { pair in
                pair.promise
                    .onSuccess { _ in fulfilled.increment() }
                    .onResult { _ in handlerRuns.increment() }
            }
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for (index, pair) in pairs.enumerated() {
                    switch (index + thread) % 3 {
                    case 0: pair.resolver.fulfill(index)
                    case 1: pair.resolver.reject(TestError())
                    default: pair.promise.cancel()
                    }
                }
            }
            return observed
        }
        let results = try #require(try? await Promise.allSettled(observed).result.get())
        #expect(results.count == count)
        #expect(handlerRuns.value == count)
        // onSuccess ran once for each promise that ended fulfilled, and for no other.
        let successes = results.filter { if case .success = $0 { true } else { false } }.count
        #expect(fulfilled.value == successes)
        #expect(successes > 0 && successes < count)
    }

    @Test("a chain of 100,000 thens built while pending resolves without overflowing the stack")
    func longChain() async throws {
        let (head, resolver) = Promise<Int>.pending()
        let tail = await offCooperativePool {
            var tail = head
            for _ in 0..<100_000 { tail = tail.then { $0 + 1 } }
            return tail
        }
        resolver.fulfill(0)
        #expect(try await tail.value == 100_000)
    }

    @Test("a rejection and a cancellation cross a chain of 100,000 steps")
    func longChainFailure() async {
        let (rejectedHead, rejecter) = Promise<Int>.pending()
        let (cancelledHead, _canceller) = Promise<Int>.pending()
        let finallies = Counter()
        let (rejectedTail, cancelledTail) = await offCooperativePool {
            var rejectedTail = rejectedHead
            var cancelledTail = cancelledHead
            for _ in 0..<100_000 {
                rejectedTail = rejectedTail.then { $0 + 1 }
                cancelledTail = cancelledTail.finally { finallies.increment() }
            }
            return (rejectedTail, cancelledTail)
        }
        rejecter.reject(TestError(code: 9))
        cancelledHead.cancel()
        #expect(await rejectedTail.settledDescription == "rejected(9)")
        #expect(await cancelledTail.settledDescription == "cancelled")
        #expect(finallies.value == 100_000)
        withExtendedLifetime(_canceller) {}
    }

    @Test("cancelling the tail of a 100,000-step chain reaches the head")
    func longChainUpwardCancel() async {
        let (head, resolver) = Promise<Int>.pending()
        let headCancelled = Promise<Void>.pending()
        resolver.onCancel { headCancelled.resolver.fulfill(()) }
        let tail = await offCooperativePool {
            var tail = head
            for _ in 0..<100_000 { tail = tail.then { $0 } }
            return tail
        }
        tail.cancel()
        _ = await headCancelled.promise.result
        #expect(head.isCancelled)
    }
}
