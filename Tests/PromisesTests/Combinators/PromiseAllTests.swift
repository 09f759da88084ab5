import Testing

@testable import Promises

@Suite("all and allSettled")
struct PromiseAllTests {
    @Test("all gives the values in the order given, whatever the order of fulfilment")
    func allInOrder() async throws {
        let pairs = (0..<5).map { _ in Promise<Int>.pending() }
        let all = Promise.all(pairs.map(\.promise))
        for index in [3, 1, 4, 0, 2] { pairs[index].resolver.fulfill(index * 10) }
        #expect(try await all.value == [0, 10, 20, 30, 40])
        #expect(try await Promise<Int>.all([]).value == [])
    }

    @Test("all fails fast on the first rejection")
    func allFailsFast() async {
        let (slow, _slowResolver) = Promise<Int>.pending()
        let all = Promise.all([slow, Promise(error: TestError(code: 2))])
        #expect(await all.settledDescription == "rejected(2)")
        #expect(slow.isPending)
        withExtendedLifetime(_slowResolver) {}
    }

    @Test("cancelling all asks every input to cancel")
    func allCancels() async {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let hooks = Counter()
        let allHooksRan = Promise<Void>.pending()
        for pair in pairs {
            pair.resolver.onCancel {
                hooks.increment()
                if hooks.value == 3 { allHooksRan.resolver.fulfill(()) }
            }
        }
        let all = Promise.all(pairs.map(\.promise))
        all.cancel()
        _ = await allHooksRan.promise.result
        #expect(pairs.allSatisfy { $0.promise.isCancelled })
    }

    @Test("allSettled reports every outcome and is never rejected")
    func allSettled() async throws {
        let (cancelled, _resolver) = Promise<Int>.pending()
        cancelled.cancel()
        let results = try await Promise.allSettled([
            Promise(value: 1), Promise(error: TestError(code: 3)), cancelled,
        ])
        .value
        #expect(try results[0].get() == 1)
        #expect(throws: TestError(code: 3)) { try results[1].get() }
        #expect(throws: CancellationError.self) { try results[2].get() }
        withExtendedLifetime(_resolver) {}
    }
}
