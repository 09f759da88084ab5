#if canImport(CZlib)
    internal import CZlib
#endif

/// Compresses the client's messages (RFC 7692 §7.2.1): raw deflate with a sync flush, the
/// trailing `00 00 FF FF` removed. Used under its connection's lock.
final class MessageDeflater: @unchecked Sendable {
    // @unchecked: the zlib stream is used by one sender at a time, under its owner's lock.
    private let stream: OpaquePointer
    private let resetsEachMessage: Bool
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    /// Messages shorter than this go uncompressed (each message may choose, RFC 7692 §6.1):
    /// deflate's framing outweighs what it saves on a few bytes.
    static let threshold = 64

    /// A deflater with the client's window (9 to 15 bits: zlib cannot write a raw stream with
    /// the 256-byte window of 8, so a server that asks for 8 gets uncompressed messages); nil
    /// when zlib cannot be used.
    init?(windowBits: Int, resetsEachMessage: Bool) {
        #if canImport(CZlib)
            guard windowBits >= 9, let stream = czlib_deflater_create(Int32(windowBits)) else { return nil }
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

    /// The compressed payload of a message, or nil when compressing failed (it is then sent as it is).
    func compress(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        #if canImport(CZlib)
            var output: [UInt8] = []
            var offset = 0
            while true {
                var consumed = 0
                var produced = 0
                let result = scratch.withUnsafeMutableBytes { room in
                    czlib_deflate(
                        stream, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, &consumed,
                        room.baseAddress, room.count, &produced)
                }
                guard result >= 0 else { return nil }
                output.append(contentsOf: scratch[..<produced])
                offset += consumed
                // The flush is complete once all input is taken and the output did not fill.
                if offset == bytes.count, produced < scratch.count { break }
            }
            if resetsEachMessage { _ = czlib_stream_reset(stream) }
            guard output.count >= 4, output.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] else { return nil }
            return Array(output.dropLast(4))
        #else
            return nil
        #endif
    }
}
