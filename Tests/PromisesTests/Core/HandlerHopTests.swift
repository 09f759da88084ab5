import Dispatch
import Foundation
import Testing

@testable import Promises

/// Hop elision: a chain's next handler on the same queue runs in the same turn of that queue.
/// Each test posts a marker block to the serial queue from inside a handler's user code: a
/// handler sent through dispatch after that runs after the marker, one taken in place before it.
@Suite("Hop elision")
struct HandlerHopTests {
    @Test("a chain of thens on one serial queue runs in one turn, ahead of work posted meanwhile")
    func chainInOneTurn() async throws {
        let marker = QueueMarker("hop.chain")
        let log = EventLog()
        let (head, resolver) = Promise<Int>.pending()
        var tail = head.then(in: marker.queue) { value -> Int in
            marker.queue.async { log.append("other") }
            log.append("1")
            return value + 1
        }
        for step in 2...10 {
            tail = tail.then(in: marker.queue) { value -> Int in
                #expect(marker.isCurrent)
                log.append("\(step)")
                return value + 1
            }
        }
        resolver.fulfill(0)
        #expect(try await tail.value == 10)
        await marker.queue.flushed()
        #expect(log.all == (1...10).map(String.init) + ["other"])
    }

    @Test("a turn takes at most 64 handlers in place; the rest take dispatch behind other work")
    func turnIsCapped() async throws {
        let marker = QueueMarker("hop.cap")
        let log = EventLog()
        let (head, resolver) = Promise<Int>.pending()
        var tail = head.onSuccess(in: marker.queue) { _ in
            marker.queue.async { log.append("other") }
            log.append("handler")
        }
        for _ in 1..<200 {
            tail = tail.onSuccess(in: marker.queue) { _ in log.append("handler") }
        }
        resolver.fulfill(1)
        _ = try await tail.value
        await marker.queue.flushed()
        let events = log.all
        #expect(events.count == 201)
        // The first handler came through dispatch and 64 followed it in place.
        #expect(events.firstIndex(of: "other") == 65)
    }

    @Test("a promise settled by user code of a handler run in place hands its handlers to dispatch")
    func userCodeSettlesThroughDispatch() async throws {
        let marker = QueueMarker("hop.user")
        let log = EventLog()
        let (other, otherResolver) = Promise<Int>.pending()
        let seen = other.onSuccess(in: marker.queue) { _ in log.append("other promise's handler") }
        // The second handler runs in place, inside a turn of the queue: its user code's
        // settlement must still go through dispatch.
        let done = Promise(value: 1).then(in: marker.queue) { $0 }.onSuccess(in: marker.queue) { _ in
            marker.queue.async { log.append("posted") }
            otherResolver.fulfill(2)
            log.append("handler returns")
        }
        _ = try await done.value
        _ = try await seen.value
        await marker.queue.flushed()
        #expect(log.all == ["handler returns", "posted", "other promise's handler"])
    }

    @Test("of the handlers a settlement hands to the queue, only the first is taken in place")
    func onlyFirstHandlerTaken() async throws {
        let marker = QueueMarker("hop.first")
        let log = EventLog()
        let (head, resolver) = Promise<Int>.pending()
        let middle = head.then(in: marker.queue) { value -> Int in
            marker.queue.async { log.append("posted") }
            return value
        }
        let first = middle.onSuccess(in: marker.queue) { _ in log.append("first") }
        let second = middle.onSuccess(in: marker.queue) { _ in log.append("second") }
        resolver.fulfill(1)
        _ = try await first.value
        _ = try await second.value
        await marker.queue.flushed()
        #expect(log.all == ["first", "posted", "second"])
    }

    @Test("a chain that changes queues hops at each change, each handler on its own queue")
    func queueChangesHop() async throws {
        let markers = [QueueMarker("hop.a"), QueueMarker("hop.b")]
        let (head, resolver) = Promise<Int>.pending()
        var tail = head
        for step in 0..<20 {
            let marker = markers[(step / 3) % 2]
            tail = tail.then(in: marker.queue) { value -> Int in
                #expect(marker.isCurrent, "step \(step)")
                return value + 1
            }
        }
        resolver.fulfill(0)
        #expect(try await tail.value == 20)
    }

    @Test("a rejection thrown in place still skips the rest of the chain to its onError")
    func rejectionInPlace() async {
        let marker = QueueMarker("hop.reject")
        let log = EventLog()
        let tail = Promise(value: 1)
            .then(in: marker.queue) { _ -> Int in throw TestError(code: 3) }
            .then(in: marker.queue) { value -> Int in
                log.append("skipped")
                return value
            }
            .onError(in: marker.queue) { log.append("error \(($0 as? TestError)?.code ?? 0)") }
        #expect(await tail.settledDescription == "rejected(3)")
        #expect(log.all == ["error 3"])
    }
}

extension DispatchQueue {
    /// Waits until every block posted to this serial queue so far has run.
    func flushed() async {
        await withCheckedContinuation { continuation in async { continuation.resume() } }
    }
}
