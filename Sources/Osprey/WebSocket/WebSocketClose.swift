/// How a WebSocket ended: the code and reason of the close frame that ended it, and which side
/// sent the first close.
public struct WebSocketClose: Sendable, Equatable, CustomStringConvertible {
    /// The side that started the closing handshake.
    public enum Initiator: Sendable, Equatable {
        /// This client: ``WebSocket/close(code:reason:)``, or a violation it failed the connection for.
        case client
        /// The server.
        case server
    }

    /// The code of the server's close frame (``WebSocketCloseCode/noStatusReceived`` when it
    /// had none); when the client failed the connection, the code it sent.
    public var code: WebSocketCloseCode
    /// The reason that came with the code (may be empty).
    public var reason: String
    /// Which side sent the first close frame.
    public var initiator: Initiator

    /// A close with these values.
    public init(code: WebSocketCloseCode, reason: String, initiator: Initiator) {
        self.code = code
        self.reason = reason
        self.initiator = initiator
    }

    /// Who closed, with which code and reason.
    public var description: String {
        "closed by the \(initiator == .client ? "client" : "server") with \(code)"
            + (reason.isEmpty ? "" : ": \(reason)")
    }
}
