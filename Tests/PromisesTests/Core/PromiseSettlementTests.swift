import Dispatch
import Testing

@testable import Promises

@Suite("Promise: settles once, first transition wins")
struct PromiseSettlementTests {
    @Test("a pending promise is fulfilled by its resolver")
    func fulfil() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending)
        #expect(promise.currentResult == nil)
        #expect(resolver.isPending)
        #expect(resolver.fulfill(7))
        #expect(!promise.isPending)
        #expect(try await promise.value == 7)
        #expect(try promise.currentResult?.get() == 7)
    }

    @Test("only the first of fulfil, reject and cancel takes effect")
    func firstWins() async {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(resolver.reject(TestError(code: 2)))
        #expect(!resolver.fulfill(1))
        #expect(!resolver.cancel())
        promise.cancel()
        #expect(!promise.isCancelled)
        #expect(await promise.settledDescription == "rejected(2)")
    }

    @Test("resolve(_:) takes a Result")
    func resolveResult() async {
        let (fulfilled, first) = Promise<Int>.pending()
        let (rejected, second) = Promise<Int>.pending()
        first.resolve(.success(3))
        second.resolve(.failure(TestError(code: 4)))
        #expect(await fulfilled.settledDescription == "fulfilled(3)")
        #expect(await rejected.settledDescription == "rejected(4)")
    }

    @Test("Promise(value:) and Promise(error:) are already settled")
    func settledInitialisers() async {
        #expect(await Promise(value: "x").settledDescription == "fulfilled(x)")
        #expect(await Promise<String>(error: TestError(code: 5)).settledDescription == "rejected(5)")
    }

    @Test("releasing the resolver of a pending promise cancels it, so chains cannot hang")
    func droppedResolverCancels() async {
        var pair: (promise: Promise<Int>, resolver: Resolver<Int>)? = Promise<Int>.pending()
        let promise = pair!.promise
        let finallyRan = Counter()
        let tail = promise.then { $0 + 1 }.finally { finallyRan.increment() }
        pair = nil
        #expect(promise.isCancelled)
        #expect(await tail.settledDescription == "cancelled")
        #expect(finallyRan.value == 1)
    }

    @Test("releasing the resolver after settling changes nothing")
    func droppedResolverAfterSettling() async {
        var resolver: Resolver<Int>?
        let promise: Promise<Int>
        (promise, resolver) = Promise<Int>.pending()
        resolver?.fulfill(9)
        resolver = nil
        #expect(await promise.settledDescription == "fulfilled(9)")
    }

    @Test("the default queue is the producer's choice and carries over to derived promises")
    func defaultQueue() async throws {
        let marker = QueueMarker("producer")
        let (promise, resolver) = Promise<Int>.pending(defaultQueue: marker.queue)
        #expect(promise.defaultQueue === marker.queue)
        let ranOnProducerQueue = promise.then { _ in marker.isCurrent }.then { $0 && marker.isCurrent }
        resolver.fulfill(1)
        #expect(try await ranOnProducerQueue.value)
    }
}
