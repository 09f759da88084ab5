import Dispatch
import Foundation
import Promises

/// The promise workloads of `shared/reference/promises.md` (W1, W2, W5, W8), each against the
/// raw Dispatch work that is its physical limit.
struct PromiseWorkloads {
    let scale: Int
    let measurement: Measurement

    let only: String?

    func run() -> [Comparison] {
        let workloads: [(String, () -> Comparison)] = [
            ("W1", createObserveFulfil), ("W2", chain), ("W5", observeSettledFromTwoThreads),
            ("W8", cancelChain),
        ]
        return workloads.filter { only == nil || $0.0 == only }.map { $0.1() }
    }

    /// W1: create a promise, add one handler on a serial queue, fulfil it.
    func createObserveFulfil() -> Comparison {
        let count = 1_000_000 / scale
        let queue = DispatchQueue(label: "bench.w1")
        let baseline: () -> Void = {
            let counter = SerialCounter()
            for index in 0..<count {
                queue.async { counter.value &+= index }
            }
            queue.sync {}
            check(counter.value == count * (count - 1) / 2, "W1 baseline count")
        }
        let measured: () -> Void = {
            let counter = SerialCounter()
            for index in 0..<count {
                let (promise, resolver) = Promise<Int>.pending()
                promise.onSuccess(in: queue) { counter.value &+= $0 }
                resolver.fulfill(index)
            }
            queue.sync {}
            check(counter.value == count * (count - 1) / 2, "W1 handlers ran exactly once")
        }
        return Comparison(
            workload: "W1 create+onSuccess+fulfil x\(count)",
            operations: count,
            baselineName: "DispatchQueue.async",
            timings: measurement.interleaved(baseline: baseline, measured: measured),
            target: 1.5
        )
    }

    /// W2: a chain of `then`s built while pending, then resolved (build and resolve timed together).
    func chain() -> Comparison {
        let count = 100_000 / scale
        let queue = DispatchQueue(label: "bench.w2")
        let baseline: () -> Void = {
            let done = DispatchSemaphore(value: 0)
            let counter = SerialCounter()
            @Sendable func hop(_ remaining: Int) {
                queue.async {
                    counter.value += 1
                    if remaining == 0 { done.signal() } else { hop(remaining - 1) }
                }
            }
            hop(count - 1)
            done.wait()
            check(counter.value == count, "W2 baseline count")
        }
        let measured: () -> Void = {
            let done = DispatchSemaphore(value: 0)
            let (head, resolver) = Promise<Int>.pending()
            var tail = head
            for _ in 0..<count { tail = tail.then(in: queue) { $0 + 1 } }
            let last = Locked(-1)
            tail.onSuccess(in: queue) { value in
                last.withLock { $0 = value }
                done.signal()
            }
            resolver.fulfill(0)
            done.wait()
            check(last.withLock { $0 } == count, "W2 chain value")
        }
        return Comparison(
            workload: "W2 chain of \(count) thens, build+resolve",
            operations: count,
            baselineName: "chained async hops",
            timings: measurement.interleaved(baseline: baseline, measured: measured),
            target: 2.0
        )
    }

    /// W5: settled promises, each observed from two threads with a handler on that thread's queue.
    func observeSettledFromTwoThreads() -> Comparison {
        let count = 1_000_000 / scale
        let queues = [DispatchQueue(label: "bench.w5.a"), DispatchQueue(label: "bench.w5.b")]
        let promises = (0..<count).map { Promise(value: $0) }
        let baseline: () -> Void = {
            let counters = [SerialCounter(), SerialCounter()]
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                let counter = counters[thread]
                for index in 0..<count { queues[thread].async { counter.value &+= index } }
            }
            for queue in queues { queue.sync {} }
            check(counters.allSatisfy { $0.value == count * (count - 1) / 2 }, "W5 baseline count")
        }
        let measured: () -> Void = {
            let counters = [SerialCounter(), SerialCounter()]
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                let counter = counters[thread]
                for promise in promises { promise.onSuccess(in: queues[thread]) { counter.value &+= $0 } }
            }
            for queue in queues { queue.sync {} }
            check(counters.allSatisfy { $0.value == count * (count - 1) / 2 }, "W5 handlers ran exactly once")
        }
        return Comparison(
            workload: "W5 settled x\(count) observed from 2 threads",
            operations: 2 * count,
            baselineName: "DispatchQueue.async",
            timings: measurement.interleaved(baseline: baseline, measured: measured),
            target: 1.5
        )
    }

    /// W8: cancel a pending chain of `finally`s; every `finally` runs and every handler is freed.
    func cancelChain() -> Comparison {
        let count = 100_000 / scale
        let queue = DispatchQueue(label: "bench.w8")
        let baseline: () -> Void = {
            let done = DispatchSemaphore(value: 0)
            @Sendable func hop(_ remaining: Int) {
                queue.async { if remaining == 0 { done.signal() } else { hop(remaining - 1) } }
            }
            hop(count - 1)
            done.wait()
        }
        final class Tracker: Sendable {}
        let measured: () -> Void = {
            let done = DispatchSemaphore(value: 0)
            let finallies = SerialCounter()
            weak var weakTracker: Tracker?
            do {
                let tracker = Tracker()
                weakTracker = tracker
                let (head, resolver) = Promise<Int>.pending()
                var tail = head
                for _ in 0..<count {
                    tail = tail.finally(in: queue) { withExtendedLifetime(tracker) { finallies.value += 1 } }
                }
                tail.onCancel(in: queue) { done.signal() }
                head.cancel()
                withExtendedLifetime(resolver) {}
            }
            done.wait()
            queue.sync {}
            check(finallies.value == count, "W8 every finally ran once")
            check(weakTracker == nil, "W8 every handler was freed")
        }
        return Comparison(
            workload: "W8 cancel a chain of \(count) finallys",
            operations: count,
            baselineName: "chained async hops",
            timings: measurement.interleaved(baseline: baseline, measured: measured),
            target: nil
        )
    }
}
