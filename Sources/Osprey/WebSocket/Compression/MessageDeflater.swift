/// Compresses the client's messages (RFC 7692 §7.2.1): raw deflate with a sync flush, the
/// trailing `00 00 FF FF` removed. Used under its connection's lock.
final class MessageDeflater: Sendable {
    private let zlib: ZlibStream
    private let resetsEachMessage: Bool

    /// Messages shorter than this go uncompressed (each message may choose, RFC 7692 §6.1):
    /// deflate's framing outweighs what it saves on a few bytes.
    static let threshold = 64

    /// A deflater with the client's window (9 to 15 bits: zlib cannot write a raw stream with
    /// the 256-byte window of 8, so a server that asks for 8 gets uncompressed messages); nil
    /// when zlib cannot be used.
    init?(windowBits: Int, resetsEachMessage: Bool) {
        guard windowBits >= 9, let zlib = ZlibStream(.deflate, windowBits: windowBits) else { return nil }
        self.zlib = zlib
        self.resetsEachMessage = resetsEachMessage
    }

    /// The compressed payload of a message, or nil when compressing failed (it is then sent as it is).
    func compress(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var output: [UInt8] = []
        var offset = 0
        while true {
            let step = zlib.step(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            guard step.result >= 0 else { return nil }
            output.append(contentsOf: zlib.output(step))
            offset += step.consumed
            // The flush is complete once all input is taken and the output did not fill.
            if offset == bytes.count, !step.filledBuffer { break }
        }
        if resetsEachMessage { zlib.reset() }
        guard output.count >= 4, output.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] else { return nil }
        return Array(output.dropLast(4))
    }
}
