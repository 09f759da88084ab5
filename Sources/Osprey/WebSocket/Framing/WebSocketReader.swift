import Foundation

/// What the peer sent, as a ``WebSocketReader`` reads it.
package enum WebSocketInbound: Equatable, Sendable {
    /// A whole message, its fragments joined (and checked: text is valid UTF-8).
    case message(WebSocketMessage)
    /// A ping, to be answered with a pong carrying the same payload.
    case ping([UInt8])
    /// A pong (an answer to a ping, or unsolicited: a heartbeat).
    case pong([UInt8])
    /// A close frame: its code, nil when the frame had none (reported as 1005), and its reason.
    case close(WebSocketCloseCode?, reason: String)
}

/// Reads messages and control frames from a connection's bytes (RFC 6455 §5.4–5.5, §8.1): joins
/// fragments, lets control frames come between them, checks text as UTF-8 while it arrives
/// (split across fragments too), bounds a message's size, and checks close frames' codes.
///
/// A sans-I/O reader: bytes in, ``WebSocketInbound`` out; the connection that owns it decides
/// what to write back. Bytes here are the peer's: they give events or a ``WebSocketViolation``,
/// never a crash, and memory holds at most one message and one frame.
package struct WebSocketReader: Sendable {
    /// The largest message accepted (after decompression); a larger one fails with 1009.
    let maximumMessageSize: Int

    private var frames: WebSocketFrameParser
    /// The message being joined: its type, its bytes so far (inflated), the check of its text,
    /// and whether it is compressed.
    private var partial: (opcode: WebSocketOpcode, bytes: [UInt8], text: UTF8Validator, compressed: Bool)?
    /// Inflates compressed messages, when permessage-deflate was negotiated.
    private let inflater: MessageInflater?
    /// Compressed bytes of the message so far (bounded by the message limit too).
    private var compressedBytes = 0

    /// A reader for a client (frames from the server are unmasked) or, with
    /// `expectsMaskedFrames`, for a test server.
    package init(
        maximumFrameSize: Int, maximumMessageSize: Int, expectsMaskedFrames: Bool = false
    ) {
        self.init(
            maximumFrameSize: maximumFrameSize, maximumMessageSize: maximumMessageSize,
            expectsMaskedFrames: expectsMaskedFrames, inflater: nil)
    }

    /// A reader for a test server that agreed to permessage-deflate with the client's window of
    /// `windowBits` (context kept): it inflates the client's compressed messages.
    package init(
        maximumFrameSize: Int, maximumMessageSize: Int, expectsMaskedFrames: Bool,
        inflatingWindowBits windowBits: Int
    ) {
        self.init(
            maximumFrameSize: maximumFrameSize, maximumMessageSize: maximumMessageSize,
            expectsMaskedFrames: expectsMaskedFrames,
            inflater: MessageInflater(windowBits: windowBits, resetsEachMessage: false))
    }

    /// A reader that inflates messages sent with RSV1 (permessage-deflate).
    init(
        maximumFrameSize: Int, maximumMessageSize: Int, expectsMaskedFrames: Bool = false,
        inflater: MessageInflater?
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.inflater = inflater
        frames = WebSocketFrameParser(
            maximumFrameSize: min(maximumFrameSize, maximumMessageSize), allowsCompression: inflater != nil,
            expectsMaskedFrames: expectsMaskedFrames)
    }

    /// How many bytes are held: the unread bytes and the message being joined.
    package var bufferedCount: Int { frames.bufferedCount + (partial?.bytes.count ?? 0) }

    /// Keeps bytes read from the connection.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        frames.append(bytes)
    }

    /// Keeps the bytes of an array.
    package mutating func append(_ bytes: [UInt8]) {
        frames.append(bytes)
    }

    /// The next message or control frame, or nil until more bytes arrive.
    /// - Throws: ``WebSocketViolation``, with the close code the connection must fail with; the
    ///   reader must not be used after that.
    package mutating func next() throws(WebSocketViolation) -> WebSocketInbound? {
        while let frame = try frames.next() {
            if let inbound = try take(frame) { return inbound }
        }
        return nil
    }

    private mutating func take(_ frame: WebSocketFrame) throws(WebSocketViolation) -> WebSocketInbound? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard partial == nil else { throw .protocolError("a new message before the previous one ended") }
            partial = (frame.opcode, [], UTF8Validator(), frame.isCompressed)
            compressedBytes = 0
        case .continuation:
            guard partial != nil else {
                throw .protocolError("a continuation frame with no message to continue")
            }
            guard !frame.isCompressed else { throw .protocolError("RSV1 set on a continuation frame") }
        }
        if partial!.compressed, let inflater {
            compressedBytes += frame.payload.count
            guard compressedBytes <= maximumMessageSize else {
                throw .tooBig("a message over the limit of \(maximumMessageSize) bytes")
            }
            let start = partial!.bytes.count
            try inflater.inflate(frame.payload, onto: &partial!.bytes, limit: maximumMessageSize)
            if frame.isFinal { try inflater.finishMessage(onto: &partial!.bytes, limit: maximumMessageSize) }
            if partial!.opcode == .text {
                let fresh = Array(partial!.bytes[start...])
                guard partial!.text.take(fresh) else {
                    throw .invalidPayload("a text message that is not UTF-8")
                }
            }
            guard frame.isFinal else { return nil }
            let (opcode, bytes, text, _) = partial!
            partial = nil
            return try Self.message(opcode, bytes, complete: text.isComplete)
        }
        guard partial!.bytes.count + frame.payload.count <= maximumMessageSize else {
            throw .tooBig("a message over the limit of \(maximumMessageSize) bytes")
        }
        if partial!.opcode == .text {
            guard partial!.text.take(frame.payload) else {
                throw .invalidPayload("a text message that is not UTF-8")
            }
        }
        if partial!.bytes.isEmpty && frame.isFinal {
            // One frame, one message: no copy into the joined bytes. Its text may still end
            // inside a character (Autobahn 6.6.1: the lone first byte of "κ").
            let (opcode, text) = (partial!.opcode, partial!.text)
            partial = nil
            return try Self.message(opcode, frame.payload, complete: text.isComplete)
        }
        partial!.bytes.append(contentsOf: frame.payload)
        guard frame.isFinal else { return nil }
        let (opcode, bytes, text, _) = partial!
        partial = nil
        return try Self.message(opcode, bytes, complete: text.isComplete)
    }

    private static func message(
        _ opcode: WebSocketOpcode, _ bytes: [UInt8], complete: Bool
    ) throws(WebSocketViolation) -> WebSocketInbound {
        guard opcode == .text else { return .message(.binary(Data(bytes))) }
        guard complete else { throw .invalidPayload("a text message that ends inside a character") }
        return .message(.text(String(decoding: bytes, as: UTF8.self)))
    }

    /// A close frame's payload: nothing, or a code that may be sent and a UTF-8 reason.
    private static func close(_ payload: [UInt8]) throws(WebSocketViolation) -> WebSocketInbound {
        guard !payload.isEmpty else { return .close(nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolError("a close frame of one byte") }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.maySendInFrame else {
            throw .protocolError("close code \(code.rawValue), which may not be sent")
        }
        let reason = Array(payload[2...])
        guard UTF8Validator.isValid(reason) else { throw .invalidPayload("a close reason that is not UTF-8") }
        return .close(code, reason: String(decoding: reason, as: UTF8.self))
    }
}
