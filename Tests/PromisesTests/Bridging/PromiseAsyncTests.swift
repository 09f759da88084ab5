import Dispatch
import Testing

@testable import Promises

@Suite("async/await both ways")
struct PromiseAsyncTests {
    @Test("await value returns the value or throws the error")
    func awaitValue() async throws {
        #expect(try await Promise(value: 1).value == 1)
        await #expect(throws: TestError(code: 3)) { try await Promise<Int>(error: TestError(code: 3)).value }
    }

    @Test("awaiting a cancelled promise throws CancellationError")
    func awaitCancelled() async {
        let (promise, _resolver) = Promise<Int>.pending()
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.value }
        withExtendedLifetime(_resolver) {}
    }

    @Test("await result reports the outcome without throwing")
    func awaitResult() async {
        let result = await Promise<Int>(error: TestError(code: 4)).result
        #expect(throws: TestError(code: 4)) { try result.get() }
    }

    @Test("cancelling the awaiting task throws at once and cancels the promise it alone observed")
    func cancelAwaitingTask() async {
        let (promise, resolver) = Promise<Int>.pending()
        let hookRan = Promise<Void>.pending()
        resolver.onCancel { hookRan.resolver.fulfill(()) }
        let task = Task { try await promise.value }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        _ = await hookRan.promise.result
        #expect(promise.isCancelled)
    }

    @Test("a cancelled awaiting task leaves a promise that others observe alone")
    func cancelAwaitingTaskShared() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let other = promise.then { $0 * 2 }
        let task = Task { try await promise.value }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        resolver.fulfill(2)
        #expect(try await other.value == 4)
    }

    @Test("Promise { try await … } fulfils or rejects with the operation's outcome")
    func fromAsync() async throws {
        let fulfilled = Promise<Int> {
            await Task.yield()
            return 5
        }
        let rejected = Promise<Int> { throw TestError(code: 6) }
        #expect(try await fulfilled.value == 5)
        #expect(await rejected.settledDescription == "rejected(6)")
    }

    @Test("cancelling a Promise { … } cancels its task")
    func cancelAsyncOperation() async {
        let started = Promise<Void>.pending()
        let sawCancellation = Promise<Void>.pending()
        let promise = Promise<Int> {
            started.resolver.fulfill(())
            // Waits until the task is cancelled: awaiting a promise nobody settles, which the
            // task's cancellation then cancels (this await was its only observer).
            let gate = Promise<Void>.pending()
            await withTaskCancellationHandler {
                _ = await gate.promise.result
            } onCancel: {
                sawCancellation.resolver.fulfill(())
            }
            withExtendedLifetime(gate.resolver) {}
            try Task.checkCancellation()
            return 1
        }
        _ = await started.promise.result
        promise.cancel()
        #expect(await sawCancellation.promise.settledDescription == "fulfilled(())")
        #expect(await promise.settledDescription == "cancelled")
    }
}
