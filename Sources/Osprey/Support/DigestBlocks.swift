/// What SHA-1 and SHA-256 share (FIPS 180-4 §5): the message padded to whole 64-byte blocks, and
/// each block read as sixteen big-endian 32-bit words.
enum DigestBlocks {
    /// Calls `body` with the first sixteen words of each block of `message`, padded: the message,
    /// a 1 bit, zeros up to 56 bytes mod 64, and its length in bits (big-endian).
    static func forEach(of message: [UInt8], _ body: (_ words: [UInt32]) -> Void) {
        var padded = message
        padded.append(0x80)
        padded.append(contentsOf: [UInt8](repeating: 0, count: (119 - message.count % 64) % 64))
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bits >> shift))
        }
        var words = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + index * 4
                words[index] =
                    UInt32(padded[at]) << 24 | UInt32(padded[at + 1]) << 16 | UInt32(padded[at + 2]) << 8
                    | UInt32(padded[at + 3])
            }
            body(words)
        }
    }

    /// The state words as the digest's bytes (big-endian).
    static func bytes(of state: [UInt32]) -> [UInt8] {
        state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
    }
}
