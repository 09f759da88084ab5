/// The masking of RFC 6455 §5.3: every byte XORed with the key's byte at its position modulo 4.
/// Applying it twice gives the bytes back, so it both masks (client frames) and unmasks.
package struct WebSocketMask: Equatable, Sendable {
    /// The four key bytes, as sent on the wire.
    package let bytes: (UInt8, UInt8, UInt8, UInt8)

    package init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) { bytes = (a, b, c, d) }

    /// A fresh key from the system's cryptographic generator: RFC 6455 §5.3 requires a new,
    /// unpredictable key for every frame, so that a proxy cannot be fed chosen bytes.
    package static func random() -> WebSocketMask {
        var generator = SystemRandomNumberGenerator()
        let word = generator.next() as UInt32
        return WebSocketMask(
            UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
            UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24))
    }

    package static func == (left: WebSocketMask, right: WebSocketMask) -> Bool {
        left.bytes == right.bytes
    }

    /// Masks (or unmasks) `buffer` in place, as bytes of a payload starting at `offset`.
    /// Eight bytes at a time: a 64 KiB frame must not cost a loop per byte.
    func apply(to buffer: UnsafeMutableRawBufferPointer, startingAt offset: Int = 0) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        let key = [bytes.0, bytes.1, bytes.2, bytes.3]
        var index = 0
        // Byte by byte until the payload position is a multiple of 4, so that the word below
        // starts with key byte 0.
        while index < buffer.count, (offset + index) % 4 != 0 {
            buffer[index] ^= key[(offset + index) % 4]
            index += 1
        }
        let word = UInt64(bytes.0) | UInt64(bytes.1) << 8 | UInt64(bytes.2) << 16 | UInt64(bytes.3) << 24
        let wide = (word | word << 32).littleEndian
        while index + 8 <= buffer.count {
            let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: value ^ wide, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < buffer.count {
            buffer[index] ^= key[(offset + index) % 4]
            index += 1
        }
    }
}
