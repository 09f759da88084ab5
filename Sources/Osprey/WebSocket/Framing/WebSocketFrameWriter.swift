/// Writes frames (RFC 6455 §5.2): the header with the shortest length form, and the payload
/// masked with a fresh key when the writer is a client's (every client frame must be).
package struct WebSocketFrameWriter: Sendable {
    /// Whether frames are masked: true for a client, false for a server (tests' servers).
    package let masks: Bool

    package init(masks: Bool = true) {
        self.masks = masks
    }

    /// Appends one frame carrying `payload` to `output`.
    /// - Parameters:
    ///   - opcode: the frame's opcode (`continuation` for every fragment after the first).
    ///   - isFinal: whether the frame ends its message.
    ///   - isCompressed: RSV1, for the first frame of a message compressed with permessage-deflate.
    ///   - mask: the key to mask with; a fresh random one when nil (ignored when not masking).
    package func append(
        _ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, isFinal: Bool = true,
        isCompressed: Bool = false, mask: WebSocketMask? = nil, to output: inout [UInt8]
    ) {
        output.append((isFinal ? 0x80 : 0) | (isCompressed ? 0x40 : 0) | opcode.rawValue)
        let maskBit: UInt8 = masks ? 0x80 : 0
        let count = payload.count
        if count <= 125 {
            output.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(truncatingIfNeeded: count >> 8))
            output.append(UInt8(truncatingIfNeeded: count))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift)))
            }
        }
        guard masks else {
            output.append(contentsOf: payload)
            return
        }
        let key = mask ?? .random()
        output.append(contentsOf: [key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3])
        let payloadStart = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { all in
            key.apply(to: UnsafeMutableRawBufferPointer(rebasing: all[payloadStart...]))
        }
    }

    /// Appends a data message: one frame, or fragments of at most `fragmentSize` bytes each (the
    /// first with the message's opcode and, when compressed, RSV1; the rest continuations; the
    /// last final).
    package func appendMessage(
        _ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, isCompressed: Bool = false,
        fragmentSize: Int?, to output: inout [UInt8]
    ) {
        guard let fragmentSize, fragmentSize > 0, payload.count > fragmentSize else {
            return append(opcode, payload: payload, isCompressed: isCompressed, to: &output)
        }
        output.reserveCapacity(output.count + payload.count + (payload.count / fragmentSize + 1) * 14)
        var start = 0
        while start < payload.count {
            let end = min(start + fragmentSize, payload.count)
            append(
                start == 0 ? opcode : .continuation,
                payload: UnsafeRawBufferPointer(rebasing: payload[start..<end]),
                isFinal: end == payload.count, isCompressed: isCompressed && start == 0, to: &output)
            start = end
        }
    }

    /// Appends one frame carrying the bytes of an array.
    package func append(
        _ opcode: WebSocketOpcode, payload: [UInt8], isFinal: Bool = true, isCompressed: Bool = false,
        mask: WebSocketMask? = nil, to output: inout [UInt8]
    ) {
        payload.withUnsafeBytes {
            append(opcode, payload: $0, isFinal: isFinal, isCompressed: isCompressed, mask: mask, to: &output)
        }
    }

    /// The payload of a close frame: the code (big-endian) and the reason, cut at a character
    /// boundary so that the whole payload stays within a control frame's 125 bytes.
    package static func closePayload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        var room = 123
        for scalar in reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            guard bytes.count <= room else { break }
            payload.append(contentsOf: bytes)
            room -= bytes.count
        }
        return payload
    }
}
