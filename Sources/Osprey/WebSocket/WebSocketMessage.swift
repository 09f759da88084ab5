import Foundation

/// A whole WebSocket message, as received or to send: text (valid UTF-8) or binary.
///
/// Fragments are joined before a message is delivered; control frames (ping, pong, close) are
/// never messages.
public enum WebSocketMessage: Sendable, Equatable, CustomStringConvertible {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's bytes: the UTF-8 of a text message, or the binary data.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// The kind and size, never the content (which may be private): `text(5 bytes)`.
    public var description: String {
        switch self {
        case .text(let text): "text(\(text.utf8.count) bytes)"
        case .binary(let data): "binary(\(data.count) bytes)"
        }
    }
}
