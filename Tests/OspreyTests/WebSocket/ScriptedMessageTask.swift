import Foundation

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``WebSocketMessageTask`` the test plays the server of: it records what the socket asked of
/// it, as events a test waits for, and hands over the messages and the close the test scripts.
/// It behaves as URLSession's task does where the socket can tell: a receive waits for the next
/// message; after the server's close (or an abort) reading fails, with the close then known.
final class ScriptedMessageTask: OpeningWebSocketTask, @unchecked Sendable {
    enum Event: Equatable, Sendable {
        case sent(WebSocketMessage)
        case ping
        case close(WebSocketCloseCode, reason: String)
        case abort
        /// The socket asked for the next message.
        case receive
        /// The handshake started.
        case resume
    }

    /// The handshake's request, as the transport made the task for it.
    let request: URLRequest?
    /// The largest message the transport let the task take.
    let messageLimit: Int?
    let identifier: Int

    /// What the socket asked, in order.
    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let lock = NSLock()
    private var waitingReceive: (@Sendable (Result<WebSocketMessage, any Error>) -> Void)?
    private var queued: [Result<WebSocketMessage, any Error>] = []
    private var _serverClose: (code: WebSocketCloseCode, reason: Data)?
    private var _answersPings = true
    private var aborted = false

    private var _httpResponse: HTTPURLResponse?
    private static let identifiers = Locked(1_000)

    /// A task for `request` (none: a socket already open).
    init(request: URLRequest? = nil, messageLimit: Int? = nil) {
        self.request = request
        self.messageLimit = messageLimit
        identifier = Self.identifiers.withLock { next in
            defer { next += 1 }
            return next
        }
        (events, continuation) = AsyncStream.makeStream()
    }

    /// The handshake's answer, as the test scripts it.
    var httpResponse: HTTPURLResponse? {
        get { lock.withLock { _httpResponse } }
        set { lock.withLock { _httpResponse = newValue } }
    }

    func resume() {
        continuation.yield(.resume)
    }

    /// Whether pings get their pong (true until set otherwise).
    var answersPings: Bool {
        get { lock.withLock { _answersPings } }
        set { lock.withLock { _answersPings = newValue } }
    }

    /// Whether a receive waits for a message now.
    var isReceiving: Bool { lock.withLock { waitingReceive != nil } }

    // MARK: The server's side

    /// A message from the server: to the waiting receive, or the next one.
    func serverSends(_ message: WebSocketMessage) {
        hand(.success(message))
    }

    /// The server's close frame arrived: reading fails from now on, with the close known.
    func serverCloses(code: WebSocketCloseCode, reason: String) {
        lock.withLock { _serverClose = (code, Data(reason.utf8)) }
        hand(.failure(URLError(.networkConnectionLost)))
    }

    /// The connection failed, with no close frame.
    func connectionFails() {
        hand(.failure(URLError(.networkConnectionLost)))
    }

    private func hand(_ result: Result<WebSocketMessage, any Error>) {
        let completion = lock.withLock { () -> (@Sendable (Result<WebSocketMessage, any Error>) -> Void)? in
            guard let waiting = waitingReceive else {
                queued.append(result)
                return nil
            }
            waitingReceive = nil
            return waiting
        }
        completion?(result)
    }

    // MARK: WebSocketMessageTask

    func send(_ message: WebSocketMessage, completion: @escaping @Sendable ((any Error)?) -> Void) {
        // After an abort nothing goes out (and no event says it did).
        let refused = lock.withLock { () -> Bool in
            if !aborted { continuation.yield(.sent(message)) }
            return aborted
        }
        completion(refused ? URLError(.cancelled) : nil)
    }

    /// Ends ``events`` after what was recorded so far.
    func finishEvents() {
        lock.withLock { continuation.finish() }
    }

    func receive(_ completion: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void) {
        continuation.yield(.receive)
        let ready = lock.withLock { () -> Result<WebSocketMessage, any Error>? in
            precondition(waitingReceive == nil, "a second receive before the first one's completion")
            if aborted { return .failure(URLError(.cancelled)) }
            guard !queued.isEmpty else {
                waitingReceive = completion
                return nil
            }
            return queued.removeFirst()
        }
        if let ready { completion(ready) }
    }

    func sendPing(_ pongReceived: @escaping @Sendable ((any Error)?) -> Void) {
        continuation.yield(.ping)
        if answersPings { pongReceived(nil) }
    }

    func close(code: WebSocketCloseCode, reason: Data) {
        continuation.yield(.close(code, reason: String(decoding: reason, as: UTF8.self)))
    }

    func abort() {
        let waiting = lock.withLock { () -> (@Sendable (Result<WebSocketMessage, any Error>) -> Void)? in
            aborted = true
            continuation.yield(.abort)
            defer { waitingReceive = nil }
            return waitingReceive
        }
        waiting?(.failure(URLError(.cancelled)))
    }

    var serverClose: (code: WebSocketCloseCode, reason: Data)? { lock.withLock { _serverClose } }
}

extension AsyncStream<ScriptedMessageTask.Event>.Iterator {
    /// Reads events until one `matches`, and returns it; nil when the stream ended first.
    mutating func next(where matches: (ScriptedMessageTask.Event) -> Bool) async -> ScriptedMessageTask.Event?
    {
        while let event = await next() {
            if matches(event) { return event }
        }
        return nil
    }
}
