import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An open WebSocket (RFC 6455): messages both ways, until either side closes it.
///
/// Open one with ``AbstractAPI/webSocket(route:parameters:options:)``; its opening handshake
/// goes through the API's pipeline like any request. Read the messages as an `AsyncSequence`
/// or with a handler, send with ``send(_:)``, and close with ``close(code:reason:)``:
///
/// ```swift
/// let socket = try await api.webSocket(route: api.get(endpoint: "/chat")).value
/// try await socket.send(text: "hello").value
/// for try await message in socket.messages {
///     print(message)
/// }
/// ```
///
/// The socket closes when it is released: keep it for as long as it should stay open.
public final class WebSocket: Sendable {
    let connection: WebSocketConnection
    /// The server's `101 Switching Protocols`.
    public let response: HTTPURLResponse
    /// The subprotocol the server chose among those offered, if any.
    public let subprotocol: String?
    /// The extensions the server accepted, as it sent them.
    public let extensions: [String]
    private let decoder: JSONDecoder?
    private let responseQueue: DispatchQueue

    init(
        connection: WebSocketConnection, response: HTTPURLResponse, agreement: WebSocketHandshake.Agreement,
        decoder: JSONDecoder?, responseQueue: DispatchQueue
    ) {
        self.connection = connection
        self.response = response
        subprotocol = agreement.subprotocol
        extensions = agreement.extensions
        self.decoder = decoder
        self.responseQueue = responseQueue
    }

    deinit {
        connection.cancel()
    }

    /// Settles when the socket ends: with how it closed when both sides exchanged close frames
    /// (either side may have started), or with the error that ended it (``WebSocketError``, a
    /// transport error, or ``APIError/cancelled`` after ``cancel()``). Handlers run on the API's
    /// response queue unless told otherwise.
    public var closed: Promise<WebSocketClose> { connection.closed }

    /// The messages, in order, as they arrive: the sequence ends after the last one when the
    /// socket closes cleanly, and throws what ended it otherwise. One task reads at a time.
    /// Cancelling the reading task cancels the socket.
    public var messages: Messages { Messages(socket: self) }

    /// Hands every message to `handler` on `queue` (the API's response queue by default), one
    /// at a time and in order, from now on.
    /// - Returns: ``closed``.
    @discardableResult
    public func onMessage(
        in queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (WebSocketMessage) -> Void
    ) -> Promise<WebSocketClose> {
        connection.deliver(on: queue ?? responseQueue, handler)
        return closed
    }

    /// Sends a message.
    /// - Returns: A promise that settles once the frame was handed to the connection, or fails
    ///   with ``WebSocketError/closed`` once the socket is closing.
    @discardableResult
    public func send(_ message: WebSocketMessage) -> Promise<Void> {
        connection.send(message)
    }

    /// Sends a text message.
    @discardableResult
    public func send(text: String) -> Promise<Void> {
        send(.text(text))
    }

    /// Sends a binary message.
    @discardableResult
    public func send(data: Data) -> Promise<Void> {
        send(.binary(data))
    }

    /// Sends `value` encoded as JSON, in a text message.
    /// - Parameters:
    ///   - value: What to send.
    ///   - encoder: The encoder (a plain `JSONEncoder` by default).
    @discardableResult
    public func send<Value: Encodable>(json value: Value, encoder: JSONEncoder = JSONEncoder()) -> Promise<
        Void
    > {
        do {
            return send(.text(String(decoding: try encoder.encode(value), as: UTF8.self)))
        } catch {
            return Promise(
                error: APIError.encodingFailed(reason: "the message could not be encoded", underlying: error))
        }
    }

    /// Decodes a message's JSON with the API's decoder (its ``JSONParser``'s, else a plain one).
    /// - Throws: the decoder's error.
    public func decode<Value: Decodable>(_ type: Value.Type, from message: WebSocketMessage) throws -> Value {
        try (decoder ?? JSONDecoder()).decode(type, from: message.data)
    }

    /// Starts the closing handshake: a close frame with `code` and `reason` (cut to fit 123
    /// bytes). Messages may still arrive until the server answers with its own close; without
    /// an answer within ``WebSocketOptions/closeTimeout`` the connection is closed anyway.
    /// - Returns: ``closed``.
    @discardableResult
    public func close(code: WebSocketCloseCode = .normal, reason: String = "") -> Promise<WebSocketClose> {
        connection.close(code: code.maySendInFrame ? code : .normal, reason: reason)
        return closed
    }

    /// Closes the connection at once, without the closing handshake: ``closed`` fails with
    /// ``APIError/cancelled``.
    public func cancel() {
        connection.cancel()
    }

    /// The messages of a socket, as an `AsyncSequence`.
    public struct Messages: AsyncSequence, Sendable {
        /// A whole message.
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        /// An iterator that reads the socket's messages.
        public func makeAsyncIterator() -> Iterator {
            Iterator(socket: socket)
        }

        /// Reads the next message.
        public struct Iterator: AsyncIteratorProtocol {
            // Holds the socket: it stays open while it is read.
            let socket: WebSocket

            /// The next message; nil once the socket closed cleanly and every message was read.
            /// - Throws: What ended the socket otherwise.
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.connection.nextMessage()
            }
        }
    }
}
