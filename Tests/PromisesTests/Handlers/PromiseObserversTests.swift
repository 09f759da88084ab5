import Dispatch
import Foundation
import Testing

@testable import Promises

@Suite("onSuccess, onError, onCancel, finally, onResult")
struct PromiseObserversTests {
    @Test("onSuccess, onError and finally run in chain order; each returns the same outcome")
    func chainOrder() async throws {
        let log = EventLog()
        let (promise, resolver) = Promise<Int>.pending()
        let tail =
            promise
            .onSuccess { log.append("success \($0)") }
            .onError { _ in log.append("error") }
            .finally { log.append("finally") }
        resolver.fulfill(5)
        #expect(try await tail.value == 5)
        #expect(log.all == ["success 5", "finally"])
    }

    @Test("on rejection only onError and finally run, in order")
    func rejectionOrder() async {
        let log = EventLog()
        let tail = Promise<Int>(error: TestError(code: 7))
            .onSuccess { _ in log.append("success") }
            .onError { log.append("error \(($0 as? TestError)?.code ?? 0)") }
            .finally { log.append("finally") }
        #expect(await tail.settledDescription == "rejected(7)")
        #expect(log.all == ["error 7", "finally"])
    }

    @Test("cancellation skips onError unless asked, runs onCancel and always finally")
    func cancellationObservers() async {
        let log = EventLog()
        let (promise, _resolver) = Promise<Int>.pending()
        let tail =
            promise
            .onError { _ in log.append("error") }
            .onError(includingCancellation: true) { log.append("error \(type(of: $0))") }
            .onCancel { log.append("cancel") }
            .finally { log.append("finally") }
        promise.cancel()
        #expect(await tail.settledDescription == "cancelled")
        #expect(log.all == ["error CancellationError", "cancel", "finally"])
        withExtendedLifetime(_resolver) {}
    }

    @Test("onResult sees every outcome as a Result")
    func onResult() async {
        let log = EventLog()
        _ = await Promise(value: 1).onResult { log.append("\((try? $0.get()) ?? -1)") }.result
        _ = await Promise<Int>(error: TestError()).onResult { log.append("\((try? $0.get()) ?? -1)") }.result
        #expect(log.all == ["1", "-1"])
    }

    @Test("each handler runs exactly once, on the queue given with in:")
    func queues() async throws {
        let marker = QueueMarker("observers")
        let checks = Locked<[Bool]>([])
        let tail = Promise(value: 1)
            .onSuccess(in: marker.queue) { _ in checks.withLock { $0.append(marker.isCurrent) } }
            .onError(in: marker.queue) { _ in checks.withLock { $0.append(false) } }
            .finally(in: marker.queue) { checks.withLock { $0.append(marker.isCurrent) } }
        _ = try await tail.value
        #expect(checks.withLock { $0 } == [true, true])
    }

    @Test("a handler added after settlement runs on its queue, never inline on the caller")
    func lateHandlerNotInline() async throws {
        let marker = QueueMarker("late")
        let log = EventLog()
        let settled = Promise(value: 1)
        let observed: Promise<Int> = marker.queue.sync {
            let observed = settled.onSuccess(in: marker.queue) { _ in log.append("handler") }
            log.append("registered")
            return observed
        }
        _ = try await observed.value
        #expect(log.all == ["registered", "handler"])
    }

    @Test("handlers on one serial queue run in registration order, before and after settling")
    func registrationOrder() async throws {
        let marker = QueueMarker("order")
        let log = EventLog()
        let (promise, resolver) = Promise<Int>.pending()
        var observed: [Promise<Int>] = []
        for index in 0..<50 {
            observed.append(promise.onSuccess(in: marker.queue) { _ in log.append("\(index)") })
        }
        resolver.fulfill(1)
        for index in 50..<100 {
            observed.append(promise.onSuccess(in: marker.queue) { _ in log.append("\(index)") })
        }
        _ = try await Promise.all(observed).value
        #expect(log.all == (0..<100).map(String.init))
    }

    @Test("a handler whose branch is not taken never runs")
    func branchNotTaken() async {
        let ran = Counter()
        _ = await Promise(value: 1).onError { _ in ran.increment() }.onCancel { ran.increment() }.result
        _ = await Promise<Int>(error: TestError()).onSuccess { _ in ran.increment() }.result
        #expect(ran.value == 0)
    }
}
