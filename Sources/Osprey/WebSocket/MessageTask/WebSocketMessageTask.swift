import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebSocket that frames itself and speaks in whole messages: URLSession's
/// `URLSessionWebSocketTask` (``URLSessionMessageTask``), or a scripted one in tests.
/// ``MessageTaskConnection`` runs a ``WebSocket`` over one.
///
/// Every method may be called from any thread; completions may come on any thread, even
/// before the call returns.
protocol WebSocketMessageTask: AnyObject, Sendable {
    /// Sends a whole message; `completion` is told once it was written, or why it never will be.
    func send(_ message: WebSocketMessage, completion: @escaping @Sendable ((any Error)?) -> Void)
    /// Reads the next message. Called again only after the last call's completion.
    func receive(_ completion: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void)
    /// Sends a ping; `pongReceived` is told when its pong arrived (nil), or the error.
    func sendPing(_ pongReceived: @escaping @Sendable ((any Error)?) -> Void)
    /// Starts the closing handshake with `code` and `reason`.
    func close(code: WebSocketCloseCode, reason: Data)
    /// Closes the connection at once.
    func abort()
    /// The server's close frame, once one arrived (its code, and its reason).
    var serverClose: (code: WebSocketCloseCode, reason: Data)? { get }
}

/// `URLSessionWebSocketTask` as a ``WebSocketMessageTask``.
///
/// Where it cannot keep ``WebSocket``'s contract, it says so here: its close codes are only the
/// ones RFC 6455 registers, so an application's code (3000–4999) goes out as 1000 with its reason,
/// and a server's such code is not seen (the socket then ends as lost). It answers the server's
/// pings itself, and its frames and extensions are its own business (no permessage-deflate).
final class URLSessionMessageTask: OpeningWebSocketTask, @unchecked Sendable {
    // @unchecked: URLSessionTask is thread-safe, though not marked Sendable on every platform.
    let task: URLSessionWebSocketTask

    init(_ task: URLSessionWebSocketTask) {
        self.task = task
    }

    /// Makes a session's WebSocket task for `request`, taking messages of up to `limit` bytes
    /// (URLSession's default is 1 MiB).
    static let make: SocketTaskMaker = { session, request, limit in
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = limit
        return URLSessionMessageTask(task)
    }

    var identifier: Int { task.taskIdentifier }
    var httpResponse: HTTPURLResponse? { task.response as? HTTPURLResponse }
    func resume() { task.resume() }

    func send(_ message: WebSocketMessage, completion: @escaping @Sendable ((any Error)?) -> Void) {
        switch message {
        case .text(let text): task.send(.string(text)) { completion($0) }
        case .binary(let data): task.send(.data(data)) { completion($0) }
        }
    }

    func receive(_ completion: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void) {
        task.receive { result in
            completion(
                result.flatMap { message in
                    // Not a switch: the enum is open on Apple platforms (a switch would need
                    // `@unknown default`) and closed in FoundationNetworking (where one warns).
                    if case .string(let text) = message { return .success(.text(text)) }
                    if case .data(let data) = message { return .success(.binary(data)) }
                    return .failure(WebSocketError.connectionLost(reason: "a message of an unknown kind"))
                })
        }
    }

    func sendPing(_ pongReceived: @escaping @Sendable ((any Error)?) -> Void) {
        task.sendPing { pongReceived($0) }
    }

    func close(code: WebSocketCloseCode, reason: Data) {
        let closeCode =
            URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure
        task.cancel(with: closeCode, reason: reason)
    }

    func abort() {
        task.cancel()
    }

    var serverClose: (code: WebSocketCloseCode, reason: Data)? {
        let code = task.closeCode
        guard code != .invalid else { return nil }
        return (WebSocketCloseCode(UInt16(clamping: code.rawValue)), task.closeReason ?? Data())
    }
}
