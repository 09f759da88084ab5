/// Reads frames (RFC 6455 §5.2) from the bytes of a connection, in whatever pieces they arrive.
///
/// Only the frame's own rules are checked here: reserved bits and opcodes, control frames that
/// are fragmented or longer than 125 bytes, the masking the receiving side expects, the size
/// limit (checked on the header, before any payload is kept, so a claimed length costs no
/// memory). How frames join into messages is ``WebSocketReader``'s concern.
///
/// Bytes here are the peer's: any of them must give frames or a ``WebSocketViolation``, never a
/// crash, and memory never holds more than one frame beyond what was appended.
struct WebSocketFrameParser: Sendable {
    /// The largest payload accepted; a larger one fails with 1009.
    let maximumFrameSize: Int
    /// Whether RSV1 may be set on data frames (permessage-deflate was negotiated).
    let allowsCompression: Bool
    /// Whether frames must be masked: true for a server reading a client, false for a client,
    /// which fails on a masked frame (RFC 6455 §5.1).
    let expectsMaskedFrames: Bool

    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` start.
    private var start = 0

    init(maximumFrameSize: Int, allowsCompression: Bool = false, expectsMaskedFrames: Bool = false) {
        self.maximumFrameSize = maximumFrameSize
        self.allowsCompression = allowsCompression
        self.expectsMaskedFrames = expectsMaskedFrames
    }

    /// How many bytes are kept, not yet read as frames.
    var bufferedCount: Int { buffer.count - start }

    /// Keeps `bytes` for the next frames.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        // The read part is dropped once it is most of the buffer: each byte moves at most once
        // more, however small the pieces.
        if start > 0, start >= buffer.count - start {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Keeps the bytes of an array for the next frames.
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next whole frame, or nil until more bytes arrive.
    /// - Throws: ``WebSocketViolation`` when the bytes break RFC 6455; the parser must not be
    ///   used after that.
    mutating func next() throws(WebSocketViolation) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw .protocolError("reserved bits RSV2 or RSV3 set") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("reserved opcode \(first & 0x0F)")
        }
        if isCompressed {
            guard allowsCompression else { throw .protocolError("RSV1 set without a compression extension") }
            guard !opcode.isControl else { throw .protocolError("RSV1 set on a control frame") }
        }
        let isMasked = second & 0x80 != 0
        guard isMasked == expectsMaskedFrames else {
            throw .protocolError(
                isMasked ? "a masked frame from the server" : "an unmasked frame from the client")
        }
        if opcode.isControl {
            guard isFinal else { throw .protocolError("a fragmented control frame") }
            guard second & 0x7F <= 125 else { throw .protocolError("a control frame longer than 125 bytes") }
        }

        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[start + index]) }
            guard length >> 63 == 0 else { throw .protocolError("a 64-bit length with its top bit set") }
            headerLength = 10
        }
        guard length <= UInt64(maximumFrameSize) else {
            throw .tooBig("a frame of \(length) bytes, over the limit of \(maximumFrameSize)")
        }
        var mask: WebSocketMask?
        if isMasked {
            guard available >= headerLength + 4 else { return nil }
            let at = start + headerLength
            mask = WebSocketMask(buffer[at], buffer[at + 1], buffer[at + 2], buffer[at + 3])
            headerLength += 4
        }
        let payloadLength = Int(length)
        guard available - headerLength >= payloadLength else { return nil }

        let payloadStart = start + headerLength
        var payload = Array(buffer[payloadStart..<payloadStart + payloadLength])
        if let mask { payload.withUnsafeMutableBytes { mask.apply(to: $0) } }
        start = payloadStart + payloadLength
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return WebSocketFrame(isFinal: isFinal, isCompressed: isCompressed, opcode: opcode, payload: payload)
    }
}
