import Testing

@testable import Promises

@Suite("detached")
struct PromiseDetachedTests {
    @Test("cancelling a detached promise leaves the source pending; its value still reaches others")
    func cancelLeavesSource() async throws {
        let (source, resolver) = Promise<Int>.pending()
        let leaving = source.detached()
        let staying = source.detached()
        leaving.cancel()
        #expect(leaving.isCancelled)
        #expect(!source.isCancelled)
        #expect(resolver.isPending)
        resolver.fulfill(7)
        #expect(try await staying.value == 7)
        #expect(try await source.value == 7)
    }

    @Test("a plain derived promise, cancelled as the only observer, cancels its source")
    func plainDerivedCancels() {
        // The hazard detached() exists for.
        let (source, _) = Promise<Int>.pending()
        source.then { $0 }.cancel()
        #expect(source.isCancelled)
    }

    @Test("the source's rejection and cancellation reach the detached promise")
    func outcomesPassThrough() async {
        let (rejected, rejecter) = Promise<Int>.pending()
        let (cancelled, _) = Promise<Int>.pending()
        let fromRejected = rejected.detached()
        let fromCancelled = cancelled.detached()
        rejecter.reject(TestError(code: 3))
        cancelled.cancel()
        #expect(await fromRejected.settledDescription == "rejected(3)")
        _ = await fromCancelled.result
        #expect(fromCancelled.isCancelled)
    }
}
