import Foundation
import Testing

@testable import Osprey

@Suite("WebSocket: messages joined from frames (RFC 6455 §5.4–5.5, §8.1)")
struct WebSocketReaderTests {
    /// The bytes of one unmasked frame, as a server sends it.
    private static func frame(
        _ opcode: WebSocketOpcode, _ payload: [UInt8], final: Bool = true
    ) -> [UInt8] {
        var output: [UInt8] = []
        WebSocketFrameWriter(masks: false).append(opcode, payload: payload, isFinal: final, to: &output)
        return output
    }

    private static func frame(_ opcode: WebSocketOpcode, _ text: String, final: Bool = true) -> [UInt8] {
        frame(opcode, Array(text.utf8), final: final)
    }

    /// What a reader makes of `bytes`, and the violation that stopped it, if any.
    private static func read(
        _ bytes: [UInt8], messageLimit: Int = 1 << 20, frameLimit: Int = 1 << 20
    ) -> (inbound: [WebSocketInbound], violation: WebSocketViolation?) {
        var reader = WebSocketReader(maximumFrameSize: frameLimit, maximumMessageSize: messageLimit)
        reader.append(bytes)
        var inbound: [WebSocketInbound] = []
        do {
            while let next = try reader.next() { inbound.append(next) }
            return (inbound, nil)
        } catch {
            return (inbound, error)
        }
    }

    @Test("fragments join into one message, with pings and pongs between them answered in order")
    func fragmentsWithControlFrames() {
        let bytes =
            Self.frame(.text, "Hel", final: false) + Self.frame(.ping, "p1")
            + Self.frame(.continuation, "lo, ", final: false) + Self.frame(.pong, "p2")
            + Self.frame(.continuation, "world") + Self.frame(.binary, [1, 2, 3])
        let (inbound, violation) = Self.read(bytes)
        #expect(violation == nil)
        #expect(
            inbound == [
                .ping(Array("p1".utf8)), .pong(Array("p2".utf8)), .message(.text("Hello, world")),
                .message(.binary(Data([1, 2, 3]))),
            ])
    }

    @Test("empty messages and empty fragments are messages too")
    func emptyMessages() {
        let bytes =
            Self.frame(.text, "") + Self.frame(.binary, [], final: false) + Self.frame(.continuation, [])
        #expect(Self.read(bytes).inbound == [.message(.text("")), .message(.binary(Data()))])
    }

    @Test("a character split across fragments is joined; invalid UTF-8 fails with 1007 at once")
    func textAcrossFragments() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let split =
            Self.frame(.text, [0x41, euro[0]], final: false)
            + Self.frame(.continuation, [euro[1]], final: false)
            + Self.frame(.continuation, [euro[2]])
        #expect(Self.read(split).inbound == [.message(.text("A€"))])
        // The first fragment is already invalid: the reader fails before the message ends.
        let invalid = Self.frame(.text, [0x41, 0xC0], final: false)
        #expect(Self.read(invalid).violation?.code == .invalidFramePayloadData)
        // Valid so far, but the message ends inside a character.
        let cut = Self.frame(.text, [0x41, euro[0]], final: false) + Self.frame(.continuation, [euro[1]])
        #expect(Self.read(cut).violation?.code == .invalidFramePayloadData)
        // So is a message of one frame (Autobahn 6.6.1: the first byte of "κ" alone).
        #expect(Self.read(Self.frame(.text, [0xCE])).violation?.code == .invalidFramePayloadData)
        #expect(
            Self.read(Self.frame(.text, [0x41, euro[0], euro[1]])).violation?.code == .invalidFramePayloadData
        )
        // Binary messages are not text: any bytes pass.
        #expect(Self.read(Self.frame(.binary, [0xC0, 0xFF])).violation == nil)
    }

    @Test("fragments out of order fail with 1002")
    func fragmentOrder() {
        #expect(Self.read(Self.frame(.continuation, "x")).violation?.code == .protocolError)
        let interleaved = Self.frame(.text, "a", final: false) + Self.frame(.binary, "b")
        #expect(Self.read(interleaved).violation?.code == .protocolError)
    }

    @Test("a message over the limit fails with 1009, whether one frame or joined fragments")
    func messageLimit() {
        let one = Self.frame(.binary, [UInt8](repeating: 1, count: 101))
        #expect(Self.read(one, messageLimit: 100).violation?.code == .messageTooBig)
        let joined =
            Self.frame(.binary, [UInt8](repeating: 1, count: 60), final: false)
            + Self.frame(.continuation, [UInt8](repeating: 1, count: 41))
        let (inbound, violation) = Self.read(joined, messageLimit: 100)
        #expect(inbound.isEmpty)
        #expect(violation?.code == .messageTooBig)
        // Exactly the limit passes.
        #expect(
            Self.read(Self.frame(.binary, [UInt8](repeating: 1, count: 100)), messageLimit: 100).violation
                == nil)
    }

    static let closeFrames: [(payload: [UInt8], expected: WebSocketInbound?, code: UInt16?, why: String)] = [
        ([], .close(nil, reason: ""), nil, "no code"),
        ([0x03, 0xE8], .close(.normal, reason: ""), nil, "1000"),
        ([0x03, 0xE8] + Array("bye ☃".utf8), .close(.normal, reason: "bye ☃"), nil, "1000 with a reason"),
        ([0x0B, 0xB8], .close(WebSocketCloseCode(3000), reason: ""), nil, "3000"),
        ([0x13, 0x87], .close(WebSocketCloseCode(4999), reason: ""), nil, "4999"),
        ([0x03, 0xF6], .close(WebSocketCloseCode(1014), reason: ""), nil, "1014"),
        ([0x03], nil, 1002, "one byte"),
        ([0x03, 0xE7], nil, 1002, "999"),
        ([0x03, 0xEC], nil, 1002, "1004"),
        ([0x03, 0xED], nil, 1002, "1005, which may not be sent"),
        ([0x03, 0xEE], nil, 1002, "1006, which may not be sent"),
        ([0x03, 0xF7], nil, 1002, "1015, which may not be sent"),
        ([0x07, 0xD0], nil, 1002, "2000"),
        ([0x13, 0x88], nil, 1002, "5000"),
        ([0xFF, 0xFF], nil, 1002, "65535"),
        (
            [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80],
            nil, 1007,
            "a reason with a surrogate"
        ),
    ]

    @Test(
        "close frames: codes that may be sent pass, others fail with 1002, a reason that is not UTF-8 with 1007"
    )
    func closeCodes() {
        for (payload, expected, code, why) in Self.closeFrames {
            let (inbound, violation) = Self.read(Self.frame(.close, payload))
            #expect(inbound == (expected.map { [$0] } ?? []), "\(why)")
            #expect(violation?.code.rawValue == code, "\(why)")
        }
    }
}
