/// Inflates compressed messages (RFC 7692 §7.2.2) as their frames arrive, never past the
/// message limit: a small frame that would inflate to gigabytes (a decompression bomb) fails
/// with 1009 once the limit is passed, having held no more than the limit and one buffer.
///
/// Used by one ``WebSocketReader`` at a time (under its connection's lock).
final class MessageInflater: Sendable {
    private let zlib: ZlibStream
    private let resetsEachMessage: Bool

    /// The end of every message: the empty stored block a sync flush writes, which the sender
    /// removed (RFC 7692 §7.2.1).
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// An inflater with the server's window; nil when zlib cannot be used.
    init?(windowBits: Int, resetsEachMessage: Bool) {
        guard let zlib = ZlibStream(.inflate, windowBits: windowBits) else { return nil }
        self.zlib = zlib
        self.resetsEachMessage = resetsEachMessage
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
        if resetsEachMessage { zlib.reset() }
    }

    private func run(_ input: [UInt8], onto output: inout [UInt8], limit: Int) throws(WebSocketViolation) {
        var offset = 0
        while true {
            let step = input.withUnsafeBytes { zlib.step(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard step.result >= 0 else { throw .invalidPayload("a compressed message that is not deflate") }
            guard output.count + step.produced <= limit else {
                throw .tooBig("a message that inflates past the limit of \(limit) bytes")
            }
            output.append(contentsOf: zlib.output(step))
            offset += step.consumed
            // A final deflate block ends the stream: what follows starts a new one.
            if step.result == 1 {
                zlib.reset()
                if offset == input.count { return }
                continue
            }
            // All input taken and the output not full: nothing more is pending.
            if offset == input.count, !step.filledBuffer { return }
            if step.consumed == 0, step.produced == 0 { return }
        }
    }
}
