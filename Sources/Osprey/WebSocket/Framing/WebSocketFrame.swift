/// The opcodes of RFC 6455 §5.2. The others (3–7, 11–15) are reserved, and a frame that uses one
/// fails the connection with 1002.
package enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between the fragments
    /// of a message.
    package var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One frame as read from the wire, its payload already unmasked.
package struct WebSocketFrame: Equatable, Sendable {
    /// Whether this is the last frame of its message (always true for a control frame).
    package var isFinal: Bool
    /// RSV1: with permessage-deflate, set on the first frame of a compressed message.
    package var isCompressed: Bool
    package var opcode: WebSocketOpcode
    package var payload: [UInt8]
}

/// Why a connection must fail (RFC 6455 §7.1.7): the close code to send and a reason for people.
/// Reasons are short ASCII, so that they always fit a close frame's 123 bytes.
package struct WebSocketViolation: Error, Equatable, Sendable {
    package var code: WebSocketCloseCode
    package var reason: String

    static func protocolError(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(code: .protocolError, reason: reason)
    }

    static func tooBig(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(code: .messageTooBig, reason: reason)
    }

    static func invalidPayload(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(code: .invalidFramePayloadData, reason: reason)
    }
}
