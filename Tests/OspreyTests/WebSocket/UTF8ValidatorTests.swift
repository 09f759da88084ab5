import Foundation
import Testing

@testable import Osprey

@Suite("WebSocket: UTF-8 checked as it arrives")
struct UTF8ValidatorTests {
    /// Valid text: ASCII, two-, three- and four-byte characters, the edges of each range.
    static let valid: [[UInt8]] = [
        [], Array("Hello, world, long enough for the eight-byte path".utf8), Array("κόσμε".utf8),
        [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
        [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        Array("a😀b€c".utf8),
    ]

    /// Invalid text, with what makes it so.
    static let invalid: [(bytes: [UInt8], why: String)] = [
        ([0x80], "a lone continuation byte"),
        ([0xBF], "a lone continuation byte (last)"),
        ([0xC0, 0x80], "overlong NUL"),
        ([0xC1, 0xBF], "overlong two-byte"),
        ([0xE0, 0x80, 0x80], "overlong three-byte"),
        ([0xE0, 0x9F, 0xBF], "overlong three-byte (highest)"),
        ([0xED, 0xA0, 0x80], "a high surrogate"),
        ([0xED, 0xBF, 0xBF], "a low surrogate"),
        ([0xF0, 0x80, 0x80, 0x80], "overlong four-byte"),
        ([0xF0, 0x8F, 0xBF, 0xBF], "overlong four-byte (highest)"),
        ([0xF4, 0x90, 0x80, 0x80], "past U+10FFFF"),
        ([0xF5, 0x80, 0x80, 0x80], "a lead byte past F4"),
        ([0xFE], "FE"), ([0xFF], "FF"),
        ([0xC2, 0x41], "a lead byte followed by ASCII"),
        ([0xE1, 0x80, 0xC0], "a three-byte character cut by a lead byte"),
        (Array("κόσμε".utf8) + [0xED, 0xA0, 0x80] + Array("edited".utf8), "a surrogate inside text"),
    ]

    @Test("valid text passes, whole and split at every byte", arguments: valid)
    func validText(bytes: [UInt8]) {
        #expect(UTF8Validator.isValid(bytes))
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let first = validator.take(Array(bytes[..<split]))
            let second = validator.take(Array(bytes[split...]))
            #expect(first && second, "split at \(split)")
            #expect(validator.isComplete, "split at \(split)")
        }
    }

    @Test("invalid text fails at the byte that breaks it, however the bytes are split")
    func invalidText() {
        for (bytes, why) in Self.invalid {
            #expect(!UTF8Validator.isValid(bytes), "\(why)")
            // Byte by byte: one of the takes fails; none passes the whole.
            var validator = UTF8Validator()
            let failed = bytes.contains { !validator.take([$0]) }
            #expect(failed, "\(why), byte by byte")
        }
    }

    @Test("text that stops inside a character is valid so far, but not complete")
    func incomplete() {
        for bytes: [UInt8] in [[0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x98]] {
            var validator = UTF8Validator()
            let taken = validator.take(bytes)
            #expect(taken)
            #expect(!validator.isComplete)
            #expect(!UTF8Validator.isValid(bytes))
        }
    }

    @Test("agrees with the standard library on every two-byte sequence and a sample of longer ones")
    func agreesWithStandardLibrary() {
        var inputs: [[UInt8]] = []
        for first in 0...255 { for second in 0...255 { inputs.append([UInt8(first), UInt8(second)]) } }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 3...6, using: &generator)
            inputs.append((0..<count).map { _ in UInt8.random(in: 0x7E...0xF5, using: &generator) })
        }
        for bytes in inputs {
            let standard = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validator.isValid(bytes) == standard, "\(bytes)")
        }
    }
}
