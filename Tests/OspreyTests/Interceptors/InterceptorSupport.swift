import Foundation
import Osprey
import OspreyTesting
import Promises

/// Records every event; `firstEvent(where:)` resolves when a matching one arrives.
final class EventRecorder: EventMonitor {
    private let state = Locked<
        (events: [APIEvent], waiters: [(@Sendable (APIEvent) -> Bool, Resolver<APIEvent>)])
    >(
        ([], []))

    func receive(_ event: APIEvent) {
        let matched = state.withLock { state -> [Resolver<APIEvent>] in
            state.events.append(event)
            let (hits, rest) = (state.waiters.filter { $0.0(event) }, state.waiters.filter { !$0.0(event) })
            state.waiters = rest
            return hits.map(\.1)
        }
        for resolver in matched { resolver.fulfill(event) }
    }

    var events: [APIEvent] { state.withLock { $0.events } }

    /// The kinds in order, as short names: started, retrying, succeeded, failed, cancelled.
    var kinds: [String] { events.map(\.kind.name) }

    func firstEvent(where predicate: @escaping @Sendable (APIEvent) -> Bool) -> Promise<APIEvent> {
        let (promise, resolver) = Promise<APIEvent>.pending()
        let existing = state.withLock { state -> APIEvent? in
            if let event = state.events.first(where: predicate) { return event }
            state.waiters.append((predicate, resolver))
            return nil
        }
        if let existing { resolver.fulfill(existing) }
        return promise
    }
}

extension APIEvent.Kind {
    var name: String {
        switch self {
        case .started: "started"
        case .retrying: "retrying"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}

/// Answers with `statuses` in turn, then keeps answering with the last one.
func sequence(_ statuses: [Int], body: String = #"{"id": 1}"#) -> LoopbackServer.Handler {
    let count = Locked(0)
    return { _ in
        let index = count.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        return .json(body, status: statuses[min(index, statuses.count - 1)])
    }
}

extension StandardRetryPolicy {
    /// No waiting between attempts: the tests count attempts, not seconds.
    static func immediate(attempts: Int = 3) -> StandardRetryPolicy {
        var policy = StandardRetryPolicy(maximumAttempts: attempts, baseDelay: 0)
        policy.random = { 0 }
        return policy
    }
}

struct Identified: Decodable, Sendable, Equatable {
    var id: Int
}
