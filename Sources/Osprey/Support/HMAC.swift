/// HMAC-SHA-256 (RFC 2104): a digest that only the holder of `key` can make, for comparing
/// secrets (a cache's credentials) without keeping them.
enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    static func code(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + message)
        return SHA256.digest(block.map { $0 ^ 0x5c } + inner)
    }

    /// ``code(_:key:)`` in lower-case hex.
    static func hex(_ message: [UInt8], key: [UInt8]) -> String {
        code(message, key: key).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// 32 random bytes from the system's generator, for a new key.
    static func makeKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
