/// SHA-1 (FIPS 180-4), for the one place a protocol still asks for it: a WebSocket server proves
/// it read the opening handshake by returning the SHA-1 of the client's key (RFC 6455 §4.2.2).
/// Nothing here relies on SHA-1 for security. Written here because Osprey depends on nothing.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var schedule = [UInt32](repeating: 0, count: 80)
        DigestBlocks.forEach(of: message) { words in
            schedule.replaceSubrange(0..<16, with: words)
            for index in 16..<80 {
                schedule[index] = rotate(
                    schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16], 1
                )
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for index in 0..<80 {
                let (mixed, constant): (UInt32, UInt32) =
                    switch index {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let next = rotate(a, 5) &+ mixed &+ e &+ constant &+ schedule[index]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, next)
            }
            for (index, value) in [a, b, c, d, e].enumerated() {
                state[index] = state[index] &+ value
            }
        }
        return DigestBlocks.bytes(of: state)
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
