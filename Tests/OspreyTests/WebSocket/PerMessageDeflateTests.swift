#if os(Linux)
    import Foundation
    import Testing

    @testable import Osprey

    @Suite("WebSocket: permessage-deflate (RFC 7692)")
    struct PerMessageDeflateTests {
        static let accepted: [(member: String, expected: PerMessageDeflate)] = [
            ("permessage-deflate", PerMessageDeflate()),
            (
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
                PerMessageDeflate(serverNoContextTakeover: true, clientNoContextTakeover: true)
            ),
            (
                "permessage-deflate; server_max_window_bits=10; client_max_window_bits=\"12\"",
                PerMessageDeflate(serverMaxWindowBits: 10, clientMaxWindowBits: 12)
            ),
        ]

        @Test("the server's parameters are read as RFC 7692 §7.1 writes them")
        func parameters() throws {
            for (member, expected) in Self.accepted {
                #expect(try PerMessageDeflate(accepting: member) == expected, "\(member)")
            }
        }

        @Test("unknown, repeated or out-of-range parameters refuse the handshake")
        func refusedParameters() {
            for member in [
                "permessage-deflate; x_unknown", "permessage-deflate; server_max_window_bits=16",
                "permessage-deflate; server_max_window_bits=7", "permessage-deflate; server_max_window_bits",
                "permessage-deflate; client_max_window_bits=09",
                "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                "permessage-deflate; server_no_context_takeover=1",
            ] {
                #expect(throws: WebSocketError.self, "\(member)") { try PerMessageDeflate(accepting: member) }
            }
            #expect(throws: WebSocketError.self) {
                try PerMessageDeflate.negotiated(in: ["permessage-deflate", "permessage-deflate"])
            }
        }

        private static func read(
            _ bytes: [UInt8], deflate: PerMessageDeflate = PerMessageDeflate(), limit: Int = 1 << 20
        )
            throws -> [WebSocketInbound]
        {
            let inflater = try #require(
                MessageInflater(
                    windowBits: deflate.serverMaxWindowBits,
                    resetsEachMessage: deflate.serverNoContextTakeover))
            var reader = WebSocketReader(
                maximumFrameSize: limit, maximumMessageSize: limit, inflater: inflater)
            reader.append(bytes)
            var inbound: [WebSocketInbound] = []
            while let next = try reader.next() { inbound.append(next) }
            return inbound
        }

        @Test(
            "the examples of RFC 7692 §7.2.3: one frame, fragments, a shared context, an uncompressed message"
        )
        func rfcExamples() throws {
            let hello = WebSocketInbound.message(.text("Hello"))
            #expect(try Self.read([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]) == [hello])
            #expect(
                try Self.read([0x41, 0x03, 0xF2, 0x48, 0xCD, 0x80, 0x04, 0xC9, 0xC9, 0x07, 0x00]) == [hello])
            // The second "Hello" refers back to the first (context takeover).
            #expect(
                try Self.read([
                    0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00,
                    0x00,
                ]) == [hello, hello])
            // RSV1 clear: the message is as it is.
            #expect(try Self.read([0x81, 0x05] + Array("Hello".utf8)) == [hello])
        }

        @Test("RSV1 on a continuation frame fails with 1002, bytes that are not deflate with 1007")
        func violations() {
            #expect(throws: WebSocketViolation.protocolError("RSV1 set on a continuation frame")) {
                try Self.read([0x41, 0x03, 0xF2, 0x48, 0xCD, 0xC0, 0x04, 0xC9, 0xC9, 0x07, 0x00])
            }
            do {
                _ = try Self.read([0xC1, 0x04, 0xFF, 0xFF, 0xFF, 0xFF])
                Issue.record("corrupt deflate accepted")
            } catch {
                #expect((error as? WebSocketViolation)?.code == .invalidFramePayloadData)
            }
        }

        @Test("a decompression bomb stops at the message limit with 1009")
        func bomb() throws {
            let deflater = try #require(MessageDeflater(windowBits: 15, resetsEachMessage: false))
            let zeros = [UInt8](repeating: 0, count: 16 << 20)
            let compressed = try #require(zeros.withUnsafeBytes { deflater.compress($0) })
            #expect(compressed.count < 64 << 10)
            var frame: [UInt8] = []
            WebSocketFrameWriter(masks: false).append(
                .binary, payload: compressed, isCompressed: true, to: &frame)
            do {
                _ = try Self.read(frame, limit: 1 << 20)
                Issue.record("a 16 MiB message passed a 1 MiB limit")
            } catch {
                #expect((error as? WebSocketViolation)?.code == .messageTooBig)
            }
        }

        @Test(
            "what the client compresses, a reader inflates back, message after message, with and without context"
        )
        func roundTrip() throws {
            for resets in [false, true] {
                let deflater = try #require(MessageDeflater(windowBits: 12, resetsEachMessage: resets))
                let inflater = try #require(MessageInflater(windowBits: 12, resetsEachMessage: resets))
                var reader = WebSocketReader(
                    maximumFrameSize: 1 << 24, maximumMessageSize: 1 << 24, expectsMaskedFrames: true,
                    inflater: inflater)
                let messages = (0..<20).map { index in
                    String(repeating: "osprey \(index) dives for fish; ", count: 1 + index * 200)
                }
                for message in messages {
                    let compressed = try #require(
                        Array(message.utf8).withUnsafeBytes { deflater.compress($0) })
                    if message.utf8.count > 1000 { #expect(compressed.count < message.utf8.count / 10) }
                    var frame: [UInt8] = []
                    WebSocketFrameWriter(masks: true).append(
                        .text, payload: compressed, isCompressed: true, to: &frame)
                    reader.append(frame)
                    let next = try reader.next()
                    #expect(next == .message(.text(message)), "resets: \(resets)")
                }
            }
        }
    }
#endif
