import Foundation
import Testing

@testable import Osprey

@Suite("WebSocket: frames read from the wire (RFC 6455 §5.2)")
struct WebSocketFrameParserTests {
    /// Every frame in `bytes`, fed whole, then one byte at a time (the same frames either way).
    private static func frames(
        _ bytes: [UInt8], limit: Int = 1 << 20, masked: Bool = false, compression: Bool = false
    ) throws(WebSocketViolation) -> [WebSocketFrame] {
        var whole = WebSocketFrameParser(
            maximumFrameSize: limit, allowsCompression: compression, expectsMaskedFrames: masked)
        whole.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try whole.next() { frames.append(frame) }
        var piecewise = WebSocketFrameParser(
            maximumFrameSize: limit, allowsCompression: compression, expectsMaskedFrames: masked)
        var again: [WebSocketFrame] = []
        for byte in bytes {
            piecewise.append([byte])
            while let frame = try piecewise.next() { again.append(frame) }
        }
        #expect(again == frames)
        #expect(piecewise.bufferedCount == whole.bufferedCount)
        return frames
    }

    private static func violation(_ bytes: [UInt8], limit: Int = 1 << 20, masked: Bool = false)
        -> WebSocketViolation?
    {
        do {
            _ = try frames(bytes, limit: limit, masked: masked)
            return nil
        } catch {
            return error
        }
    }

    @Test("the examples of RFC 6455 §5.7")
    func rfcExamples() throws {
        let hello = Array("Hello".utf8)
        #expect(
            try Self.frames([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
                == [WebSocketFrame(isFinal: true, isCompressed: false, opcode: .text, payload: hello)])
        // The masked "Hello", as a server reads it.
        #expect(
            try Self.frames([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58], masked: true)
                == [WebSocketFrame(isFinal: true, isCompressed: false, opcode: .text, payload: hello)])
        // "Hel" then "lo".
        #expect(
            try Self.frames([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]) == [
                WebSocketFrame(
                    isFinal: false, isCompressed: false, opcode: .text, payload: Array("Hel".utf8)),
                WebSocketFrame(
                    isFinal: true, isCompressed: false, opcode: .continuation, payload: Array("lo".utf8)),
            ])
        // An unmasked ping carrying "Hello".
        #expect(
            try Self.frames([0x89, 0x05] + hello)
                == [WebSocketFrame(isFinal: true, isCompressed: false, opcode: .ping, payload: hello)])
        // 256 bytes (16-bit length) and 65,536 bytes (64-bit length) of binary.
        let short = try Self.frames([0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 7, count: 256))
        #expect(short.map(\.payload.count) == [256])
        let long = [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + [UInt8](repeating: 9, count: 65_536)
        var parser = WebSocketFrameParser(maximumFrameSize: 1 << 20)
        parser.append(long)
        let frame = try parser.next()
        #expect(frame?.payload == [UInt8](repeating: 9, count: 65_536))
        #expect(parser.bufferedCount == 0)
    }

    @Test("a frame waits for its last byte, and the bytes after it stay for the next")
    func partialFrames() throws {
        var parser = WebSocketFrameParser(maximumFrameSize: 1024)
        parser.append([0x82, 0x03, 1, 2])
        let early = try parser.next()
        #expect(early == nil)
        parser.append([3, 0x8A, 0x00, 0x81])
        let first = try parser.next()
        let second = try parser.next()
        let third = try parser.next()
        #expect(first?.payload == [1, 2, 3])
        #expect(second?.opcode == .pong)
        #expect(third == nil)
        #expect(parser.bufferedCount == 1)
    }

    static let violations: [(bytes: [UInt8], code: UInt16, why: String)] = [
        ([0xA1, 0x00], 1002, "RSV2 set"),
        ([0x91, 0x00], 1002, "RSV3 set"),
        ([0xC1, 0x00], 1002, "RSV1 set with no extension"),
        ([0x83, 0x00], 1002, "reserved data opcode 3"),
        ([0x87, 0x00], 1002, "reserved data opcode 7"),
        ([0x8B, 0x00], 1002, "reserved control opcode 11"),
        ([0x8F, 0x00], 1002, "reserved control opcode 15"),
        ([0x09, 0x00], 1002, "a fragmented ping"),
        ([0x88, 0x7E, 0x00, 0x7E], 1002, "a close frame of 126 bytes"),
        ([0x89, 0x7E], 1002, "a ping with a 16-bit length, refused before its length arrives"),
        ([0x81, 0x81, 1, 2, 3, 4, 0x41], 1002, "a masked frame from a server"),
        ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002, "a 64-bit length with its top bit set"),
        ([0x82, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], 1009, "a length of 2^63 - 1"),
        ([0x82, 0x7E, 0x04, 0x01], 1009, "1,025 bytes, over a limit of 1,024"),
    ]

    @Test("frames that break the protocol fail with 1002, too large ones with 1009, before their payload")
    func violationsFail() {
        for (bytes, code, why) in Self.violations {
            #expect(Self.violation(bytes, limit: 1024)?.code.rawValue == code, "\(why)")
        }
        // A client's frame read by a server must be masked.
        #expect(Self.violation([0x81, 0x01, 0x41], masked: true)?.code == .protocolError)
    }

    @Test("RSV1 is accepted on data frames once compression is negotiated, never on control frames")
    func compressedFrames() throws {
        #expect(try Self.frames([0xC1, 0x01, 0x41], compression: true).first?.isCompressed == true)
        #expect(throws: WebSocketViolation.self) { try Self.frames([0xC9, 0x00], compression: true) }
    }

    @Test("writer and parser agree: every length form, masked with a fresh key per frame")
    func roundTrip() throws {
        let writer = WebSocketFrameWriter(masks: true)
        var output: [UInt8] = []
        let sizes = [0, 1, 125, 126, 127, 65_535, 65_536, 70_001]
        for (index, size) in sizes.enumerated() {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            writer.append(.binary, payload: payload, isFinal: index % 2 == 0, to: &output)
        }
        let frames = try Self.frames(output, masked: true)
        #expect(frames.map(\.payload.count) == sizes)
        for (index, frame) in frames.enumerated() {
            #expect(frame.payload == (0..<sizes[index]).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            #expect(frame.isFinal == (index % 2 == 0))
        }
        // The shortest length form each time: 2, 4 or 10 header bytes, plus the key.
        var one: [UInt8] = []
        writer.append(.text, payload: [UInt8](repeating: 0x41, count: 125), to: &one)
        #expect(one.count == 2 + 4 + 125)
        one = []
        writer.append(.text, payload: [UInt8](repeating: 0x41, count: 126), to: &one)
        #expect(one.count == 4 + 4 + 126)
        one = []
        writer.append(.text, payload: [UInt8](repeating: 0x41, count: 65_536), to: &one)
        #expect(one.count == 10 + 4 + 65_536)
        // Fresh keys: 32 frames never all share one key (the chance they would is 2^-992).
        var keys = Set<[UInt8]>()
        for _ in 0..<32 {
            var frame: [UInt8] = []
            writer.append(.ping, payload: [], to: &frame)
            keys.insert(Array(frame[2..<6]))
        }
        #expect(keys.count > 1)
    }

    @Test("masking at any offset and length matches the byte-by-byte definition")
    func maskOffsets() {
        let mask = WebSocketMask(0x37, 0xFA, 0x21, 0x3D)
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        for offset in 0..<5 {
            for count in [0, 1, 3, 7, 8, 9, 15, 16, 17, 33] {
                var bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 13) }
                let expected = bytes.enumerated().map { $0.element ^ key[($0.offset + offset) % 4] }
                bytes.withUnsafeMutableBytes { mask.apply(to: $0, startingAt: offset) }
                #expect(bytes == expected, "offset \(offset), \(count) bytes")
            }
        }
    }
}
