/// Why a WebSocket could not open, or why it ended other than by a close both sides agreed to.
///
/// The handshake's own failures reach the caller inside ``APIError`` like any request's (a
/// status other than 101 is ``APIError/unacceptableStatus(context:serverError:)`` with the
/// response); these are the failures only a WebSocket has.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered 101 but broke the opening handshake (RFC 6455 §4.1): a wrong
    /// `Sec-WebSocket-Accept`, a subprotocol or extension that was not offered, …
    case invalidHandshake(reason: String)
    /// The peer broke the protocol: the connection was failed with `code` (1002, 1007, 1009, …)
    /// sent to it, for `reason`.
    case protocolViolation(code: WebSocketCloseCode, reason: String)
    /// The connection ended without the closing handshake (1006): the server closed it, the
    /// network failed, or keep-alive pings went unanswered.
    case connectionLost(reason: String)
    /// A message was sent after the socket started closing, or ended.
    case closed
    /// Two tasks read the socket's messages at once: each message goes to one reader.
    case concurrentReads
    /// The transport cannot open WebSockets (``URLSessionTransport`` on Linux): use
    /// ``CurlTransport`` there.
    case unsupportedTransport(reason: String)

    /// What went wrong, for people.
    public var description: String {
        switch self {
        case .invalidHandshake(let reason): "invalid WebSocket handshake: \(reason)"
        case .protocolViolation(let code, let reason): "WebSocket failed with \(code): \(reason)"
        case .connectionLost(let reason): "WebSocket connection lost: \(reason)"
        case .closed: "the WebSocket is closing or closed: nothing more can be sent"
        case .concurrentReads: "the WebSocket's messages are already being read by another task"
        case .unsupportedTransport(let reason): "this transport cannot open a WebSocket: \(reason)"
        }
    }
}
