import Dispatch
import Testing

@testable import Promises

/// Handlers keep their step inside the allocation of the promise they return (`HandlerStep`).
/// These pin down what that must not change: when captures are freed, and values whose
/// alignment differs from the header's.
@Suite("Handler steps held inside their promise")
struct HandlerStepTests {
    /// Every handler kept as a step, and the outcomes that run it.
    enum Handler: CaseIterable, Sendable {
        case thenValue, thenPromise, onSuccess, onError, onErrorOrCancel, onCancel, finally, onResult
        case recoverValue, recoverPromise, mapError

        func register(on promise: Promise<Int>, _ queue: DispatchQueue, capturing token: Token) -> Promise<
            Int
        > {
            let keep: @Sendable () -> Void = { withExtendedLifetime(token) {} }
            return switch self {
            case .thenValue:
                promise.then(in: queue) { value in
                    keep()
                    return value
                }
            case .thenPromise:
                promise.then(in: queue) { value in
                    keep()
                    return Promise(value: value)
                }
            case .onSuccess: promise.onSuccess(in: queue) { _ in keep() }
            case .onError: promise.onError(in: queue) { _ in keep() }
            case .onErrorOrCancel: promise.onError(in: queue, includingCancellation: true) { _ in keep() }
            case .onCancel: promise.onCancel(in: queue, keep)
            case .finally: promise.finally(in: queue, keep)
            case .onResult: promise.onResult(in: queue) { _ in keep() }
            // Recovered with the value a fulfilment would have given, to compare outcomes alike.
            case .recoverValue:
                promise.recover(in: queue) { _ in
                    keep()
                    return 7
                }
            case .recoverPromise:
                promise.recover(in: queue) { _ in
                    keep()
                    return Promise(value: 7)
                }
            case .mapError:
                promise.mapError(in: queue) { error in
                    keep()
                    return error
                }
            }
        }

        /// Whether the handler runs for a fulfilment, a rejection and a cancellation.
        var runs: (fulfilled: Bool, rejected: Bool, cancelled: Bool) {
            switch self {
            case .thenValue, .thenPromise, .onSuccess: (true, false, false)
            case .onError: (false, true, false)
            case .onErrorOrCancel: (false, true, true)
            case .onCancel: (false, false, true)
            case .finally, .onResult: (true, true, true)
            case .recoverValue, .recoverPromise, .mapError: (false, true, false)
            }
        }

        /// Whether a rejection becomes the value 7.
        var recovers: Bool {
            switch self {
            case .recoverValue, .recoverPromise: true
            default: false
            }
        }
    }

    enum Settlement: CaseIterable, Sendable {
        case fulfil, reject, cancel

        func settle(_ resolver: Resolver<Int>) {
            switch self {
            case .fulfil: resolver.fulfill(7)
            case .reject: resolver.reject(TestError())
            case .cancel: resolver.cancel()
            }
        }

        func runs(_ handler: Handler) -> Bool {
            switch self {
            case .fulfil: handler.runs.fulfilled
            case .reject: handler.runs.rejected
            case .cancel: handler.runs.cancelled
            }
        }
    }

    /// A handler that ran is freed once its work returned; one that will never run is freed as
    /// its upstream settles, on the settling thread, before the promise it returned has taken
    /// the outcome. Either way the promise it returned passes the outcome on.
    @Test(
        "a step's captures are freed once it ran, or as its upstream settles when it will not run",
        arguments: Handler.allCases, Settlement.allCases)
    func stepReleased(handler: Handler, settlement: Settlement) async {
        weak var weakToken: Token?
        let (promise, resolver) = Promise<Int>.pending()
        let queue = DispatchQueue(label: "test.step.release")
        let observed: Promise<Int>
        do {
            let token = Token()
            weakToken = token
            observed = handler.register(on: promise, queue, capturing: token)
        }
        #expect(weakToken != nil)
        settlement.settle(resolver)
        if !settlement.runs(handler) { #expect(weakToken == nil) }
        let result = await observed.result
        // Once a later block has run on the serial queue, the one that ran the handler returned.
        queue.sync {}
        #expect(weakToken == nil)
        switch settlement {
        case .fulfil: #expect((try? result.get()) == 7)
        case .reject where handler.recovers: #expect((try? result.get()) == 7)
        case .reject: #expect(throws: TestError.self) { try result.get() }
        case .cancel: #expect(throws: CancellationError.self) { try result.get() }
        }
        withExtendedLifetime(observed) {}
    }

    /// 16-byte aligned values make the step's tail start elsewhere than a plain header would: the
    /// core must find its header where it was made, not where the plain layout puts it.
    @Test("values aligned more strictly than the header pass through every kind of step")
    func overAlignedValues() async throws {
        typealias Wide = SIMD4<Double>
        try #require(MemoryLayout<Wide>.alignment > MemoryLayout<PromiseHeader<Int>>.alignment)
        #expect(MemoryLayout<StepTail<ValueStep<Wide, Wide>>>.offset(of: \.header) == 0)
        #expect(MemoryLayout<StepTail<ObserverStep<Wide>>>.offset(of: \.header) == 0)
        let seen = Locked<Wide?>(nil)
        let (head, resolver) = Promise<Wide>.pending()
        let tail =
            head
            .then { $0 * 2 }
            .then { Promise(value: $0 + 1) }
            .onSuccess { value in seen.withLock { $0 = value } }
            .finally {}
            .onResult { _ in }
            .then { $0.sum() }
        resolver.fulfill(Wide(1, 2, 3, 4))
        #expect(try await tail.value == 24)
        #expect(seen.withLock { $0 } == Wide(3, 5, 7, 9))
        // A late registration on the stepped promise (locked through the recorded header offset).
        #expect(try await head.then { $0.x }.value == 1)
    }
}
