import Dispatch
import Testing

@testable import Promises

@Suite("Cancellation")
struct PromiseCancellationTests {
    @Test("cancel() runs the producer's hook once, settles as cancelled, and cancels derived promises")
    func cancelRunsHook() async {
        let hookRuns = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { hookRuns.increment() }
        let derived = promise.then { $0 + 1 }
        promise.cancel()
        promise.cancel()
        #expect(promise.isCancelled)
        #expect(!resolver.fulfill(1))
        #expect(await derived.settledDescription == "cancelled")
        #expect(hookRuns.value == 1)
    }

    @Test("a cancel hook added after cancellation runs at once; after fulfilment, never")
    func lateCancelHook() {
        let hookRuns = Counter()
        let (cancelled, first) = Promise<Int>.pending()
        cancelled.cancel()
        first.onCancel { hookRuns.increment() }
        let (_, second) = Promise<Int>.pending()
        second.fulfill(1)
        second.onCancel { hookRuns.increment() }
        #expect(hookRuns.value == 1)
    }

    @Test("cancelling the end of a chain cancels its head once every observer has cancelled")
    func propagatesUpstream() async {
        let (head, resolver) = Promise<Int>.pending()
        let hookRan = Promise<Void>.pending()
        resolver.onCancel { hookRan.resolver.fulfill(()) }
        let tail = head.onSuccess { _ in }.then { $0 * 2 }.finally {}
        tail.cancel()
        _ = await hookRan.promise.result
        #expect(head.isCancelled)
    }

    @Test("a head shared by two chains is not cancelled when only one of them is")
    func sharedHeadSurvives() async throws {
        let (head, resolver) = Promise<Int>.pending()
        let first = head.then { $0 + 1 }
        let second = head.then { $0 + 2 }
        first.cancel()
        // Give the asynchronous upstream request time to arrive by waiting on the same queue.
        await withCheckedContinuation { continuation in
            head.defaultQueue.async(flags: .barrier) { continuation.resume() }
        }
        #expect(!head.isCancelled)
        resolver.fulfill(1)
        #expect(try await second.value == 3)
        #expect(await first.settledDescription == "cancelled")
    }

    @Test("cancelling a chained step cancels the promise it is waiting for")
    func cancelsInnerPromise() async {
        let (inner, innerResolver) = Promise<Int>.pending()
        let innerCancelled = Promise<Void>.pending()
        innerResolver.onCancel { innerCancelled.resolver.fulfill(()) }
        let started = Promise<Void>.pending()
        let chained = Promise(value: 1).then { _ -> Promise<Int> in
            started.resolver.fulfill(())
            return inner
        }
        _ = await started.promise.result
        chained.cancel()
        _ = await innerCancelled.promise.result
        #expect(inner.isCancelled)
    }

    @Test("cancel racing fulfil settles exactly once", arguments: 0..<3)
    func cancelRace(round: Int) async {
        for _ in 0..<2_000 {
            let (promise, resolver) = Promise<Int>.pending()
            let settlements = Counter()
            let observed = promise.onResult { _ in settlements.increment() }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { resolver.fulfill(round) } else { promise.cancel() }
            }
            _ = await observed.result
            #expect(settlements.value == 1)
        }
    }
}
