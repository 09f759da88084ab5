import Dispatch
import Testing

@testable import Promises

/// `then` and `onSuccess` keep their handler inside the allocation of the promise they return
/// (`HandlerStep`). These pin down what that must not change: when captures are freed, and
/// values whose alignment differs from the header's.
@Suite("Handler steps held inside their promise")
struct HandlerStepTests {
    /// The three handlers kept as steps: `then` returning a value, `then` returning a promise,
    /// and `onSuccess`.
    static func observe(_ promise: Promise<Int>, on queue: DispatchQueue, way: Int, capturing token: Token)
        -> Promise<Int>
    {
        switch way {
        case 0: promise.then(in: queue) { value in withExtendedLifetime(token) { value } }
        case 1: promise.then(in: queue) { value in withExtendedLifetime(token) { Promise(value: value) } }
        default: promise.onSuccess(in: queue) { _ in withExtendedLifetime(token) {} }
        }
    }

    @Test("a step's captures are freed once it ran, while the promise it returned lives on", arguments: 0..<3)
    func ranStepReleased(way: Int) async throws {
        weak var weakToken: Token?
        let (promise, resolver) = Promise<Int>.pending()
        let queue = DispatchQueue(label: "test.step.release")
        let observed: Promise<Int>
        do {
            let token = Token()
            weakToken = token
            observed = Self.observe(promise, on: queue, way: way, capturing: token)
        }
        #expect(weakToken != nil)
        resolver.fulfill(7)
        #expect(try await observed.value == 7)
        // Once a later block has run on the serial queue, the one that ran the handler returned.
        queue.sync {}
        #expect(weakToken == nil)
        withExtendedLifetime(observed) {}
    }

    /// The handler will never run: its captures go as the upstream settles, on the settling
    /// thread, before the promise it returned has taken the failure.
    @Test("a step skipped by a rejection or cancellation is freed as its upstream settles", arguments: 0..<6)
    func skippedStepReleased(way: Int) async {
        weak var weakToken: Token?
        let (promise, resolver) = Promise<Int>.pending()
        let observed: Promise<Int>
        do {
            let token = Token()
            weakToken = token
            observed = Self.observe(
                promise, on: DispatchQueue(label: "test.step.skip"), way: way % 3, capturing: token)
        }
        if way < 3 { resolver.reject(TestError()) } else { resolver.cancel() }
        #expect(weakToken == nil)
        let result = await observed.result
        if way < 3 {
            #expect(throws: TestError.self) { try result.get() }
        } else {
            #expect(throws: CancellationError.self) { try result.get() }
        }
    }

    /// 16-byte aligned values make the step's tail start elsewhere than a plain header would: the
    /// core must find its header where it was made, not where the plain layout puts it.
    @Test("values aligned more strictly than the header pass through then and onSuccess")
    func overAlignedValues() async throws {
        typealias Wide = SIMD4<Double>
        try #require(MemoryLayout<Wide>.alignment > MemoryLayout<PromiseHeader<Int>>.alignment)
        #expect(MemoryLayout<StepTail<ValueStep<Wide, Wide>>>.offset(of: \.header) == 0)
        #expect(MemoryLayout<StepTail<SuccessStep<Wide>>>.offset(of: \.header) == 0)
        let seen = Locked<Wide?>(nil)
        let (head, resolver) = Promise<Wide>.pending()
        let tail =
            head
            .then { $0 * 2 }
            .then { Promise(value: $0 + 1) }
            .onSuccess { value in seen.withLock { $0 = value } }
            .then { $0.sum() }
        resolver.fulfill(Wide(1, 2, 3, 4))
        #expect(try await tail.value == 24)
        #expect(seen.withLock { $0 } == Wide(3, 5, 7, 9))
        // A late registration on the stepped promise (locked through the recorded header offset).
        #expect(try await head.then { $0.x }.value == 1)
    }
}
