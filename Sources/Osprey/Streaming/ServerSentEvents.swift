import Foundation
import Promises

/// A reconnecting event source (the WHATWG HTML standard's `EventSource`, for an API client):
/// the events of a `text/event-stream`, read across as many connections as it takes. Made by
/// ``AbstractAPI/events(route:parameters:reconnection:)``.
///
/// ```swift
/// for try await event in api.events(route: api.get(endpoint: "/feed")) {
///     let update: Update = try event.decode()
/// }
/// ```
///
/// When a connection ends or drops (a transport error or a timeout), it reconnects after the
/// delay the server asked for (`retry:`, 3 s until then), sending the last event ID it saw as
/// `Last-Event-ID`. The delay doubles for every reconnection in a row that brought no event, up
/// to ``Reconnection/maximumDelay``, with jitter: each wait is a random time between half the
/// delay and the delay, so that clients dropped together do not come back together. No wait is
/// shorter than ``Reconnection/minimumDelay`` (0.5 s by default), whatever the server asks: a
/// `retry: 0` cannot make it reconnect in a loop. The last event ID is kept across connections
/// until an `id:` field changes it, as the standard says: an event without `id:` after a
/// reconnection still carries the last one, and the next reconnection still sends it.
///
/// A request that is not idempotent (`POST`, `PATCH`) is never sent twice unless
/// ``Reconnection/resendsNonIdempotentRequests`` allows it (or it carries an `Idempotency-Key`):
/// its source ends with its one connection, and a dropped connection is an error.
///
/// It stops for good, ending the sequence, on a `204`; and with an error on a status the API
/// does not accept (the ``APIError`` a plain request gets), on a `Content-Type` other than
/// `text/event-stream` (``APIError/parsingFailed(underlying:context:)`` with a
/// ``NotAnEventStream``), on an event larger than 4 MiB
/// (``APIError/parsingFailed(underlying:context:)`` with a ``ServerSentEventTooLarge``), or on
/// cancellation (`CancellationError`, see ``cancel()``).
public final class ServerSentEvents: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent

    /// When to reconnect.
    public struct Reconnection: Sendable {
        /// The shortest wait before a reconnection unless a policy sets one: 0.5 s, a floor like
        /// the one browsers keep, so that a server's `retry: 0` (or one that is gone) costs at
        /// most two connections a second, not thousands.
        public static let defaultMinimumDelay: TimeInterval = 0.5

        /// The delay before the server sets one with `retry:`.
        public var initialDelay: TimeInterval
        /// The shortest wait before any reconnection: the floor under the server's `retry:`, the
        /// initial delay, the doubling (which starts from it) and the jitter. Zero lets a
        /// server's `retry: 0` reconnect at once, in a loop; keep it above zero outside tests.
        public var minimumDelay: TimeInterval = Reconnection.defaultMinimumDelay
        /// The longest wait the doubling reaches (a longer `retry:` from the server is honoured);
        /// below ``minimumDelay``, the minimum wins.
        public var maximumDelay: TimeInterval
        /// Reconnections in a row without an event after which it gives up: with the last error
        /// when the last connection failed, else by ending the sequence; nil for never.
        public var maximumAttempts: Int?
        /// Whether a request that is not idempotent (`POST`, `PATCH`: a prompt, an order) is
        /// sent again to reconnect. False by default: such a source ends with its connection.
        /// A request with an `Idempotency-Key` header reconnects either way.
        public var resendsNonIdempotentRequests = false

        /// A policy whose waits are never shorter than ``defaultMinimumDelay``.
        public init(
            initialDelay: TimeInterval = 3, maximumDelay: TimeInterval = 60, maximumAttempts: Int? = nil
        ) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.maximumAttempts = maximumAttempts
        }

        /// A policy with its own floor under every wait.
        /// - Parameters:
        ///   - initialDelay: The delay before the server sets one with `retry:`.
        ///   - minimumDelay: The shortest wait before any reconnection (see ``minimumDelay``).
        ///   - maximumDelay: The longest wait the doubling reaches.
        ///   - maximumAttempts: Reconnections in a row without an event before giving up.
        public init(
            initialDelay: TimeInterval = 3, minimumDelay: TimeInterval, maximumDelay: TimeInterval = 60,
            maximumAttempts: Int? = nil
        ) {
            self.init(
                initialDelay: initialDelay, maximumDelay: maximumDelay, maximumAttempts: maximumAttempts)
            self.minimumDelay = minimumDelay
        }

        /// A policy that says whether a request that is not idempotent is sent again.
        /// - Parameters:
        ///   - initialDelay: The delay before the server sets one with `retry:`.
        ///   - minimumDelay: The shortest wait before any reconnection (see ``minimumDelay``).
        ///   - maximumDelay: The longest wait the doubling reaches.
        ///   - maximumAttempts: Reconnections in a row without an event before giving up.
        ///   - resendsNonIdempotentRequests: See ``resendsNonIdempotentRequests``.
        public init(
            initialDelay: TimeInterval = 3, minimumDelay: TimeInterval = Reconnection.defaultMinimumDelay,
            maximumDelay: TimeInterval = 60, maximumAttempts: Int? = nil, resendsNonIdempotentRequests: Bool
        ) {
            self.init(
                initialDelay: initialDelay, minimumDelay: minimumDelay, maximumDelay: maximumDelay,
                maximumAttempts: maximumAttempts)
            self.resendsNonIdempotentRequests = resendsNonIdempotentRequests
        }

        /// The range the wait before reconnection number `attempt` in a row without an event is
        /// drawn from, when the stream asked for `retry` (seconds): the delay doubled per
        /// attempt from the base (the server's, else the initial one, never below the floor),
        /// capped, then half of it to all of it, never below the floor.
        func waitRange(attempt: Int, retry: TimeInterval?) -> ClosedRange<TimeInterval> {
            let floor = minimumDelay > 0 ? minimumDelay : 0
            let base = Swift.max(floor, retry ?? initialDelay)
            let doubled = base * pow(2, Double(Swift.min(30, Swift.max(0, attempt - 1))))
            let delay = Swift.max(floor, Swift.min(doubled, Swift.max(maximumDelay, base)))
            return Swift.max(floor, delay / 2)...delay
        }
    }

    /// Opens one connection, sending `Last-Event-ID` when there is one.
    typealias Open = @Sendable (_ lastEventID: String?) -> ResponseStream

    private let open: Open
    fileprivate let reconnection: Reconnection
    /// Whose parser decodes events' data for ``values(of:decoder:)``.
    let api: AbstractAPI?
    /// Whether a connection that ended or dropped is opened again: false for a request that
    /// must not be sent twice.
    let reopens: Bool
    private let defaultQueue: DispatchQueue
    private let state = Locked(State())
    /// The wait before the next reconnection: the policy's, or one a test makes up.
    let random: @Sendable (ClosedRange<Double>) -> Double

    private struct State {
        var current: ResponseStream?
        var isCancelled = false
        var lastEventID: String?
        /// The server's `retry:`, in milliseconds.
        var reconnectionTime: Int?
        var connections = 0
        /// The head of the connection being read: the request and response errors name.
        var head: ResponseHead?
        /// Ends the wait before a reconnection early (a cancellation).
        var waiting: CheckedContinuation<Void, Never>?
    }

    init(
        reconnection: Reconnection, defaultQueue: DispatchQueue, api: AbstractAPI? = nil,
        reopens: Bool = true,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) },
        open: @escaping Open
    ) {
        self.open = open
        self.api = api
        self.reopens = reopens
        self.reconnection = reconnection
        self.defaultQueue = defaultQueue
        self.random = random
    }

    /// The last event ID seen, which the next reconnection sends.
    public var lastEventID: String? { state.withLock { $0.lastEventID } }

    /// How many connections were opened so far.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// The head of the connection being read, if one arrived.
    var currentHead: ResponseHead? { state.withLock { $0.head } }

    /// Stops reading and closes the connection. Not an error: the reading task throws
    /// `CancellationError`, and the promise of ``onEvent(in:_:)`` settles as cancelled.
    public func cancel() {
        let (current, waiting) = state.withLock { state in
            state.isCancelled = true
            defer { state.waiting = nil }
            return (state.current, state.waiting)
        }
        current?.cancel()
        waiting?.resume()
    }

    /// Reads the events, reconnecting as needed.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self)
    }

    /// Runs `handler` for each event, in order, on `queue` (the API's response queue by
    /// default), the next one only once the handler has returned.
    /// - Returns: A promise that settles when the source stops (a `204`), or fails with why it
    ///   stopped; cancelling it, or the end of a chain built on it, closes the connection. A
    ///   cancelled source settles it as cancelled, not failed.
    @discardableResult
    public func onEvent(
        in queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (ServerSentEvent) -> Void
    )
        -> Promise<Void>
    {
        let queue = queue ?? defaultQueue
        let promise = Promise<Void>(defaultQueue: queue) { [self] in
            for try await event in self {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    queue.async {
                        handler(event)
                        done.resume()
                    }
                }
            }
        }
        // Not an observer: cancelling a chain built on the promise cancels it, and with it the
        // source (even while it waits to reconnect).
        promise.whenSettled(asObserver: false) { [self] result in
            if case .failure(let error) = result, error is CancellationError { cancel() }
        }
        return promise
    }

    /// Reads a ``ServerSentEvents`` source.
    public struct Iterator: AsyncIteratorProtocol {
        let source: ServerSentEvents
        var events: ResponseStream.Events.Iterator?
        var quietReconnections = 0
        var finished = false

        /// The next event; nil once the server answered `204`.
        /// - Throws: Why the source stopped.
        public mutating func next() async throws -> ServerSentEvent? {
            while !finished {
                if source.state.withLock({ $0.isCancelled }) { throw CancellationError() }
                if events == nil {
                    guard try await connect() else {
                        finished = true
                        return nil
                    }
                }
                do {
                    // What the server asked for counts even when the connection then drops.
                    defer {
                        if let time = events?.reconnectionTime {
                            source.state.withLock { $0.reconnectionTime = time }
                        }
                        // An `id:` in a block without data moves the last event ID too.
                        if let events {
                            let id = events.lastEventID
                            source.state.withLock { $0.lastEventID = id }
                        }
                    }
                    if let event = try await events?.next() {
                        quietReconnections = 0
                        source.state.withLock { $0.lastEventID = event.id }
                        return event
                    }
                } catch let error where Self.reconnects(after: error) {
                    guard source.reopens else { throw error }
                    try checkAttempts(after: error)
                }
                // A request that must not be sent twice ends with its connection.
                guard source.reopens else {
                    finished = true
                    return nil
                }
                // The connection ended or dropped: reconnect after the delay, unless enough
                // reconnections in a row brought nothing.
                if let limit = source.reconnection.maximumAttempts, quietReconnections >= limit {
                    finished = true
                    return nil
                }
                events = nil
                quietReconnections += 1
                try await source.wait(reconnection: quietReconnections)
            }
            return nil
        }

        /// Opens a connection, trying again after each failure that reconnects (in a loop, so
        /// that a server that stays away grows no chain of calls); false when the server says
        /// there is nothing more (`204`).
        private mutating func connect() async throws -> Bool {
            while true {
                let (stream, lastEventID) = source.connect()
                do {
                    let head = try await stream.response
                    if head.statusCode == 204 { return false }
                    let type = head.headers["Content-Type"]?.split(separator: ";").first
                        .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    guard type == "text/event-stream" else {
                        stream.cancel()
                        throw APIError.parsingFailed(
                            underlying: NotAnEventStream(contentType: head.headers["Content-Type"]),
                            context: .init(request: head.request, response: head.httpResponse))
                    }
                    // The standard keeps the last event ID buffer across connections: an event
                    // without `id:` on this one still carries (and keeps) the last one.
                    events = ResponseStream.Events(stream: stream, lastEventID: lastEventID)
                        .makeAsyncIterator()
                    source.state.withLock { $0.head = head }
                    return true
                } catch let error where Self.reconnects(after: error) {
                    guard source.reopens else { throw error }
                    try checkAttempts(after: error)
                    quietReconnections += 1
                    try await source.wait(reconnection: quietReconnections)
                }
            }
        }

        private func checkAttempts(after error: any Error) throws {
            if let limit = source.reconnection.maximumAttempts, quietReconnections >= limit { throw error }
        }

        /// A dropped connection or a timeout is reconnected; anything else stops the source.
        static func reconnects(after error: any Error) -> Bool {
            switch error as? APIError {
            case .transport, .timedOut: true
            default: false
            }
        }
    }

    // MARK: Connections

    /// Opens a connection; returns it with the last event ID it was opened with, which seeds
    /// its parser.
    private func connect() -> (stream: ResponseStream, lastEventID: String?) {
        let lastEventID = state.withLock { $0.lastEventID }
        let stream = open(lastEventID.flatMap { $0.isEmpty ? nil : $0 })
        let cancelled = state.withLock { state -> Bool in
            state.current = stream
            state.connections += 1
            return state.isCancelled
        }
        if cancelled { stream.cancel() }
        return (stream, lastEventID)
    }

    /// Waits before reconnection number `attempt` in a row without an event (a cancellation ends
    /// the wait at once).
    fileprivate func wait(reconnection attempt: Int) async throws {
        let retry = state.withLock { $0.reconnectionTime }.map { Double($0) / 1000 }
        let range = reconnection.waitRange(attempt: attempt, retry: retry)
        // The floor holds whatever the random source returns.
        let wait = range.upperBound > 0 ? Swift.max(range.lowerBound, random(range)) : 0
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let cancelled = state.withLock { state -> Bool in
                guard !state.isCancelled else { return true }
                state.waiting = continuation
                return false
            }
            if cancelled { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + Swift.max(0, wait)) { [self] in
                let waiting = state.withLock { state in
                    defer { state.waiting = nil }
                    return state.waiting
                }
                waiting?.resume()
            }
        }
        if state.withLock({ $0.isCancelled }) || Task.isCancelled { throw CancellationError() }
    }
}

/// A response that was meant to be an event stream but is not: its `Content-Type`.
public struct NotAnEventStream: Error, Sendable, CustomStringConvertible {
    /// The `Content-Type` the response had, if any.
    public var contentType: String?

    /// Says what came instead.
    public var description: String {
        "the response is not a text/event-stream (Content-Type: \(contentType ?? "none"))"
    }
}

/// An event of a `text/event-stream` that grew past the limit (its data and fields together):
/// the stream was stopped rather than kept growing in memory. It comes as
/// ``APIError/parsingFailed(underlying:context:)``.
public struct ServerSentEventTooLarge: Error, Sendable, CustomStringConvertible {
    /// The most bytes an event may hold.
    public var limit: Int

    /// Says what the limit was.
    public var description: String {
        "a server-sent event passed the limit of \(limit) bytes of data and fields"
    }
}
