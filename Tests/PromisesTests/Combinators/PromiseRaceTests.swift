import Testing

@testable import Promises

@Suite("race and any")
struct PromiseRaceTests {
    @Test("race settles like the first to settle and asks the others to cancel")
    func race() async {
        let (loser, loserResolver) = Promise<Int>.pending()
        let loserCancelled = Promise<Void>.pending()
        loserResolver.onCancel { loserCancelled.resolver.fulfill(()) }
        let winner = Promise.race([loser, Promise(error: TestError(code: 5))])
        #expect(await winner.settledDescription == "rejected(5)")
        _ = await loserCancelled.promise.result
        #expect(loser.isCancelled)
    }

    @Test("race of nothing is cancelled")
    func raceOfNothing() async {
        #expect(await Promise<Int>.race([]).settledDescription == "cancelled")
    }

    @Test("any skips rejections and takes the first value")
    func anyTakesFirstValue() async throws {
        let (late, lateResolver) = Promise<Int>.pending()
        let first = Promise.any([Promise(error: TestError()), late])
        lateResolver.fulfill(8)
        #expect(try await first.value == 8)
    }

    @Test("any rejects with every error when nothing is fulfilled")
    func anyAllFailed() async {
        let result = await Promise.any([
            Promise<Int>(error: TestError(code: 1)), Promise(error: TestError(code: 2)),
        ])
        .result
        guard case .failure(PromiseError.noneFulfilled(let errors)) = result else {
            Issue.record("expected noneFulfilled, got \(result)")
            return
        }
        #expect(errors.compactMap { ($0 as? TestError)?.code } == [1, 2])
    }
}
