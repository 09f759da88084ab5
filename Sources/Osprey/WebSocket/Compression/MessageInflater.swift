#if canImport(CZlib)
    internal import CZlib
#endif

/// Inflates compressed messages (RFC 7692 §7.2.2) as their frames arrive, never past the
/// message limit: a small frame that would inflate to gigabytes (a decompression bomb) fails
/// with 1009 once the limit is passed, having held no more than the limit and one buffer.
///
/// Used by one ``WebSocketReader`` at a time (under its connection's lock).
final class MessageInflater: @unchecked Sendable {
    // @unchecked: the zlib stream is used by one reader, under its owner's lock.
    private let stream: OpaquePointer
    private let resetsEachMessage: Bool
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    /// The end of every message: the empty stored block a sync flush writes, which the sender
    /// removed (RFC 7692 §7.2.1).
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// An inflater with the server's window; nil when zlib cannot be used.
    init?(windowBits: Int, resetsEachMessage: Bool) {
        #if canImport(CZlib)
            guard let stream = czlib_inflater_create(Int32(windowBits)) else { return nil }
            self.stream = stream
            self.resetsEachMessage = resetsEachMessage
        #else
            return nil
        #endif
    }

    deinit {
        #if canImport(CZlib)
            czlib_stream_destroy(stream)
        #endif
    }

    /// Inflates a frame's payload onto `output`.
    /// - Throws: 1009 past `limit` bytes of output, 1007 when the bytes are not deflate.
    func inflate(_ payload: [UInt8], onto output: inout [UInt8], limit: Int) throws(WebSocketViolation) {
        try run(payload, onto: &output, limit: limit)
    }

    /// Ends the message: inflates the tail the sender left out, and forgets the context when the
    /// server starts each message afresh.
    func finishMessage(onto output: inout [UInt8], limit: Int) throws(WebSocketViolation) {
        try run(Self.tail, onto: &output, limit: limit)
        #if canImport(CZlib)
            if resetsEachMessage { _ = czlib_stream_reset(stream) }
        #endif
    }

    private func run(_ input: [UInt8], onto output: inout [UInt8], limit: Int) throws(WebSocketViolation) {
        #if canImport(CZlib)
            var offset = 0
            while true {
                var consumed = 0
                var produced = 0
                let result = input.withUnsafeBytes { bytes in
                    scratch.withUnsafeMutableBytes { room in
                        czlib_inflate(
                            stream, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, &consumed,
                            room.baseAddress, room.count, &produced)
                    }
                }
                guard result >= 0 else { throw .invalidPayload("a compressed message that is not deflate") }
                guard output.count + produced <= limit else {
                    throw .tooBig("a message that inflates past the limit of \(limit) bytes")
                }
                output.append(contentsOf: scratch[..<produced])
                offset += consumed
                // A final deflate block ends the stream: what follows starts a new one.
                if result == 1 {
                    _ = czlib_stream_reset(stream)
                    if offset == input.count { return }
                    continue
                }
                // All input taken and the output not full: nothing more is pending.
                if offset == input.count, produced < scratch.count { return }
                if consumed == 0, produced == 0 { return }
            }
        #else
            throw .invalidPayload("compression is not available")
        #endif
    }
}
