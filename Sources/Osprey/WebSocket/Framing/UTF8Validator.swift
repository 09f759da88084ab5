/// Checks UTF-8 as it arrives, fragment by fragment, as RFC 6455 §8.1 asks of a text message:
/// a connection fails (1007) at the first byte that cannot be part of valid UTF-8, even when
/// the message is split across frames, without waiting for its end.
///
/// Valid means RFC 3629: the shortest form, no surrogates (U+D800–DFFF), nothing past U+10FFFF.
struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current character.
    private var pending = 0
    /// The range the next continuation byte must fall in (narrower than 0x80–0xBF right after
    /// some lead bytes, which is how overlong forms, surrogates and code points past U+10FFFF
    /// are refused).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether the bytes so far end on a character boundary: a message may end here.
    var isComplete: Bool { pending == 0 }

    /// Takes the next bytes; false as soon as they cannot be valid UTF-8 (the validator must
    /// not be used after that).
    mutating func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            if pending == 0 {
                // ASCII runs, eight bytes at a time: most text is ASCII.
                while index + 8 <= count,
                    bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
                let byte = bytes[index]
                index += 1
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: pending = 1
                case 0xE0: (pending, lower, upper) = (2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: pending = 2
                case 0xED: (pending, lower, upper) = (2, 0x80, 0x9F)
                case 0xF0: (pending, lower, upper) = (3, 0x90, 0xBF)
                case 0xF1...0xF3: pending = 3
                case 0xF4: (pending, lower, upper) = (3, 0x80, 0x8F)
                default: return false
                }
            } else {
                let byte = bytes[index]
                index += 1
                guard byte >= lower, byte <= upper else { return false }
                pending -= 1
                (lower, upper) = (0x80, 0xBF)
            }
        }
        return true
    }

    /// Takes the next bytes of an array.
    mutating func take(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { take($0) }
    }

    /// Whether `bytes` are complete, valid UTF-8.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.take(bytes) && validator.isComplete
    }
}
