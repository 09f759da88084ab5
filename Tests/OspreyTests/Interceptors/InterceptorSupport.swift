import Foundation
import Osprey
import OspreyTesting
import Promises

/// Records every event; `firstEvent(where:)` and `waitUntil(_:)` resolve when the events allow.
final class EventRecorder: EventMonitor {
    private struct State {
        var events: [APIEvent] = []
        var waiters: [(@Sendable (APIEvent) -> Bool, Resolver<APIEvent>)] = []
        var conditions: [(@Sendable ([APIEvent]) -> Bool, Resolver<Void>)] = []
    }

    private let state = Locked(State())

    func receive(_ event: APIEvent) {
        // Progress reports are the progress tests' business; these tests follow the attempts.
        if case .progress = event.kind { return }
        let (matched, satisfied) = state.withLock { state -> ([Resolver<APIEvent>], [Resolver<Void>]) in
            state.events.append(event)
            let hits = state.waiters.filter { $0.0(event) }
            state.waiters.removeAll { $0.0(event) }
            let events = state.events
            let met = state.conditions.filter { $0.0(events) }
            state.conditions.removeAll { $0.0(events) }
            return (hits.map(\.1), met.map(\.1))
        }
        for resolver in matched { resolver.fulfill(event) }
        for resolver in satisfied { resolver.fulfill(()) }
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

    /// Resolves once `condition` holds for the events received so far (checked after each one).
    func waitUntil(_ condition: @escaping @Sendable ([APIEvent]) -> Bool) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        let holdsNow = state.withLock { state -> Bool in
            if condition(state.events) { return true }
            state.conditions.append((condition, resolver))
            return false
        }
        if holdsNow { resolver.fulfill(()) }
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
        case .progress: "progress"
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
