import Foundation
import Promises

/// An open WebSocket at work: the protocol's state (``WebSocketStateMachine``) over an upgraded
/// connection, the received messages waiting for their reader, and the timers (keep-alive, the
/// wait for the server's close).
///
/// The transport calls ``received(_:)`` on its own thread; it runs the state machine under the
/// lock and writes what the machine says under it too, so that frames go out in the order the
/// machine made them (a close frame never overtakes a message). Readers are resumed, and
/// handlers dispatched, after the lock is released.
final class WebSocketConnection: UpgradedConnectionReceiver, Sendable {
    private let connection: any UpgradedConnection
    let options: WebSocketOptions
    private let state: Locked<State>
    private let timers = DispatchQueue(label: "osprey.websocket.timers")
    /// Settles when the socket ends (see ``WebSocket/closed``).
    let closed: Promise<WebSocketClose>
    private let resolver: Resolver<WebSocketClose>

    private struct State {
        var machine: WebSocketStateMachine
        /// Received messages not yet taken, oldest first (from `head` on).
        var inbox: [WebSocketMessage] = []
        var head = 0
        /// Bytes of received messages not yet consumed (queued, or in a handler's queue).
        var waitingBytes = 0
        var readingPaused = false
        /// The most bytes that ever waited for the reader (tests check the buffer's bound).
        var highestWaitingBytes = 0
        /// Tasks waiting for reading to pause once (tests).
        var pauseWaiters: [CheckedContinuation<Bool, Never>] = []
        var pausedOnce = false
        /// A reader waiting in ``nextMessage()``.
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        /// Where messages go instead, once ``deliver(on:_:)`` was called.
        var handler: (queue: DispatchQueue, body: @Sendable (WebSocketMessage) -> Void)?
        /// How the socket ended, once it has (messages may still wait for their reader).
        var end: Result<WebSocketClose, any Error>?
        var keepAlive: (any DispatchSourceTimer)?
        /// Whether the close timer closed the connection.
        var closeTimedOut = false
    }

    init(
        connection: any UpgradedConnection, options: WebSocketOptions, deflate: PerMessageDeflate? = nil,
        defaultQueue: DispatchQueue?
    ) {
        self.connection = connection
        self.options = options
        state = Locked(
            State(
                machine: WebSocketStateMachine(
                    maximumFrameSize: options.maximumFrameSize,
                    maximumMessageSize: options.maximumMessageSize,
                    deflate: deflate, outgoingFrameSize: options.maximumOutgoingFrameSize)))
        (closed, resolver) = Promise<WebSocketClose>.pending(defaultQueue: defaultQueue)
    }

    /// Starts reading, and the keep-alive pings if asked for.
    func start() {
        if let interval = options.keepAliveInterval, interval > 0, interval.isFinite {
            let timer = DispatchSource.makeTimerSource(queue: timers)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.keepAliveDue() }
            state.withLock { $0.keepAlive = timer }
            timer.resume()
        }
        connection.start(self)
    }

    // MARK: From the transport

    func received(_ bytes: UnsafeRawBufferPointer) {
        let effects = state.withLock { state -> [@Sendable () -> Void] in
            let actions = state.machine.received(bytes)
            return apply(actions, to: &state)
        }
        for effect in effects { effect() }
    }

    func ended(_ error: (any Error)?) {
        let effects = state.withLock { state -> [@Sendable () -> Void] in
            var actions = state.machine.connectionEnded(error: error)
            if state.closeTimedOut, case .failure = actions.outcome {
                actions.outcome = .failure(
                    .connectionLost(
                        reason:
                            "no close frame from the server within \(options.closeTimeout) s of the client's")
                )
            }
            return apply(actions, to: &state)
        }
        for effect in effects { effect() }
    }

    // MARK: From the application

    /// Sends `message`; the promise settles once its frame was handed to the connection.
    func send(_ message: WebSocketMessage) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        let sent = state.withLock { state -> Bool in
            guard let frame = state.machine.send(message) else { return false }
            connection.write(frame) { error in
                if let error { resolver.reject(error) } else { resolver.fulfill(()) }
            }
            return true
        }
        if !sent { resolver.reject(WebSocketError.closed) }
        return promise
    }

    /// Starts the closing handshake; the connection is closed without it after the close timeout.
    func close(code: WebSocketCloseCode, reason: String) {
        let started = state.withLock { state -> Bool in
            let actions = state.machine.close(code: code, reason: reason)
            guard !actions.write.isEmpty else { return false }
            connection.write(actions.write, written: nil)
            return true
        }
        guard started else { return }
        timers.asyncAfter(deadline: .now() + max(0, options.closeTimeout)) { [weak self] in
            guard let self else { return }
            let late = state.withLock { state -> Bool in
                guard state.end == nil else { return false }
                state.closeTimedOut = true
                return true
            }
            if late { connection.close() }
        }
    }

    /// Ends the socket at once: no closing handshake, the connection closes.
    func cancel() {
        let effects = state.withLock { state -> [@Sendable () -> Void] in
            _ = state.machine.connectionEnded(error: nil)
            return finish(.failure(APIError.cancelled), in: &state)
        }
        connection.close()
        for effect in effects { effect() }
    }

    /// The next message, nil once the socket closed cleanly and every message was read.
    /// - Throws: how the socket failed; `CancellationError` when the task was cancelled (the
    ///   socket is then cancelled too).
    func nextMessage() async throws -> WebSocketMessage? {
        // A task cancelled before it asks gets what a task cancelled while it waits gets.
        if Task.isCancelled {
            cancel()
            throw CancellationError()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<WebSocketMessage?, any Error>) in
                let effects = state.withLock { state -> [@Sendable () -> Void] in
                    if let message = take(from: &state) {
                        return [{ continuation.resume(returning: message) }] + consumed(message, in: &state)
                    }
                    if let end = state.end {
                        return [{ continuation.resume(with: end.map { _ in nil }) }]
                    }
                    if state.reader != nil {
                        return [{ continuation.resume(throwing: WebSocketError.concurrentReads) }]
                    }
                    state.reader = continuation
                    return []
                }
                for effect in effects { effect() }
            }
        } onCancel: {
            let reader = state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: CancellationError())
            cancel()
        }
    }

    /// Hands every message, from now on, to `body` on `queue`, one at a time and in order.
    func deliver(on queue: DispatchQueue, _ body: @escaping @Sendable (WebSocketMessage) -> Void) {
        let effects = state.withLock { state -> [@Sendable () -> Void] in
            state.handler = (queue, body)
            var effects: [@Sendable () -> Void] = []
            while let message = take(from: &state) {
                effects.append(dispatch(message, queue: queue, body: body))
            }
            return effects
        }
        for effect in effects { effect() }
    }

    // MARK: For tests

    /// Waits until reading paused once because the reader fell behind: true, or false when the
    /// socket ended first.
    func readingPausedOnce() async -> Bool {
        await withCheckedContinuation { continuation in
            let answer = state.withLock { state -> Bool? in
                if state.pausedOnce { return true }
                if state.end != nil { return false }
                state.pauseWaiters.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// The most bytes of received messages that ever waited for the reader.
    var highestWaitingBytes: Int { state.withLock { $0.highestWaitingBytes } }

    // MARK: Inside the lock

    /// Writes and closes as the machine says, queues its messages, and ends the socket when it
    /// has an outcome; returns what must run after the lock is released.
    private func apply(_ actions: WebSocketStateMachine.Actions, to state: inout State)
        -> [@Sendable () -> Void]
    {
        if !actions.write.isEmpty { connection.write(actions.write, written: nil) }
        if actions.closeConnection { connection.close() }
        var effects: [@Sendable () -> Void] = []
        for message in actions.deliver {
            state.waitingBytes += message.byteCount
            if let handler = state.handler {
                effects.append(dispatch(message, queue: handler.queue, body: handler.body))
            } else if let reader = state.reader {
                state.reader = nil
                effects.append { reader.resume(returning: message) }
                effects += consumed(message, in: &state)
            } else {
                state.inbox.append(message)
            }
        }
        state.highestWaitingBytes = max(state.highestWaitingBytes, state.waitingBytes)
        if state.waitingBytes > options.bufferSize, !state.readingPaused {
            state.readingPaused = true
            connection.setReading(false)
            state.pausedOnce = true
            let waiters = state.pauseWaiters
            state.pauseWaiters = []
            effects += waiters.map { waiter in { waiter.resume(returning: true) } }
        }
        if let outcome = actions.outcome {
            effects += finish(outcome.mapError { $0 as any Error }, in: &state)
        }
        return effects
    }

    private func take(from state: inout State) -> WebSocketMessage? {
        guard state.head < state.inbox.count else { return nil }
        let message = state.inbox[state.head]
        state.head += 1
        // The taken part is dropped once it is half the array: each message moves at most once.
        if state.head * 2 >= state.inbox.count {
            state.inbox.removeFirst(state.head)
            state.head = 0
        }
        return message
    }

    /// A message left the socket's hands: reading starts again once the waiting bytes fell to
    /// half the buffer.
    private func consumed(_ message: WebSocketMessage, in state: inout State) -> [@Sendable () -> Void] {
        state.waitingBytes -= message.byteCount
        if state.readingPaused, state.waitingBytes <= options.bufferSize / 2 {
            state.readingPaused = false
            connection.setReading(true)
        }
        return []
    }

    private func dispatch(
        _ message: WebSocketMessage, queue: DispatchQueue,
        body: @escaping @Sendable (WebSocketMessage) -> Void
    ) -> @Sendable () -> Void {
        { [self] in
            queue.async { [self] in
                body(message)
                state.withLock { state in _ = consumed(message, in: &state) }
            }
        }
    }

    /// Records how the socket ended (once), stops the timers, and settles the promise and a
    /// waiting reader after the lock.
    private func finish(_ outcome: Result<WebSocketClose, any Error>, in state: inout State)
        -> [@Sendable () -> Void]
    {
        guard state.end == nil else { return [] }
        state.end = outcome
        state.keepAlive?.cancel()
        state.keepAlive = nil
        let resolver = resolver
        let pauseWaiters = state.pauseWaiters
        state.pauseWaiters = []
        var effects: [@Sendable () -> Void] = pauseWaiters.map { waiter in { waiter.resume(returning: false) }
        }
        effects += [
            {
                switch outcome {
                case .success(let close): resolver.fulfill(close)
                case .failure(let error): resolver.reject(error)
                }
            }
        ]
        if let reader = state.reader, state.head >= state.inbox.count {
            state.reader = nil
            effects.append { reader.resume(with: outcome.map { _ in nil }) }
        }
        return effects
    }

    private func keepAliveDue() {
        let effects = state.withLock { state -> [@Sendable () -> Void] in
            apply(state.machine.keepAliveDue(), to: &state)
        }
        for effect in effects { effect() }
    }
}

extension WebSocketMessage {
    /// The bytes the message holds, for the reader's buffer.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
