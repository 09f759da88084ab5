#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// One case of the Autobahn test suite's client sections, reproduced with the loopback
    /// server's WebSocket side: what the server sends (frames, whole or cut into pieces), what a
    /// client that echoes every message must echo and answer, and how the connection must end.
    ///
    /// The client under test is Autobahn's: it reads every message and sends it back, and does
    /// nothing else. Cases are numbered as in Autobahn's reports (`3.2`, `6.12.8`, …).
    struct AutobahnCase: Sendable, CustomTestStringConvertible {
        /// How the case ends.
        enum Ending: Sendable, Equatable {
            /// The server closes with 1000 once the echoes arrived; the client answers with 1000.
            case clean
            /// The client fails the connection with this close code (it must not go on).
            case fails(UInt16)
            /// The case's own close frame ends it (its code, nil for none, and reason); the
            /// client answers with the same code.
            case serverCloses(UInt16?, reason: String = "")
        }

        /// Autobahn's number.
        let id: String
        /// What the case does, in Autobahn's words where they fit.
        let summary: String
        /// What the server writes, in order: each element in one write, or cut in pieces.
        let writes: [Write]
        /// The messages the application must receive (and, for a clean ending, echo).
        var messages: [Message] = []
        /// The payloads of the pongs the client must answer with, in order.
        var pongs: [[UInt8]] = []
        let ending: Ending
        /// The client's options (compression off: these sections are without extensions).
        var options = AutobahnCase.uncompressed

        var testDescription: String { "\(id) \(summary)" }

        static let uncompressed = {
            var options = WebSocketOptions()
            options.compression = false
            return options
        }()

        /// A message as a case expects it (bytes, not `Data`: the tables live as long as the
        /// process, and LeakSanitizer cannot follow `Data`'s storage from a static).
        enum Message: Sendable, Equatable {
            case text(String)
            case binary([UInt8])

            var value: WebSocketMessage {
                switch self {
                case .text(let text): .text(text)
                case .binary(let bytes): .binary(Data(bytes))
                }
            }
        }

        /// Bytes the server writes.
        struct Write: Sendable {
            let bytes: [UInt8]
            /// Written in pieces of this many bytes (Autobahn's "chops"); whole when nil.
            var pieces: Int?
        }
    }

    /// Frames as a server writes them (unmasked), with any bits, opcodes and lengths.
    enum ServerFrame {
        /// A frame: `opcode` (reserved ones too), `rsv` as the three reserved bits (RSV1 = 4).
        static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
            var bytes: [UInt8] = []
            WebSocketFrameWriter(masks: false).append(.binary, payload: payload, isFinal: fin, to: &bytes)
            bytes[0] = (fin ? 0x80 : 0) | ((rsv & 0x7) << 4) | (opcode & 0x0F)
            return bytes
        }

        static func text(_ text: String, fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
            frame(0x1, Array(text.utf8), fin: fin, rsv: rsv)
        }

        static func continuation(_ text: String, fin: Bool = true) -> [UInt8] {
            frame(0x0, Array(text.utf8), fin: fin)
        }

        static func ping(_ payload: [UInt8] = []) -> [UInt8] { frame(0x9, payload) }

        static func pong(_ payload: [UInt8] = []) -> [UInt8] { frame(0xA, payload) }

        /// A close frame: `code` (none when nil) and the reason's bytes, as given.
        static func close(_ code: UInt16?, reason: [UInt8] = []) -> [UInt8] {
            frame(0x8, (code.map { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] } ?? []) + reason)
        }
    }

    extension AutobahnCase.Write {
        /// `frames` in one write.
        static func together(_ frames: [UInt8]...) -> Self { Self(bytes: frames.flatMap { $0 }) }

        /// `frames` in one write, in pieces of `size` bytes.
        static func chopped(_ size: Int, _ frames: [UInt8]...) -> Self {
            Self(bytes: frames.flatMap { $0 }, pieces: size)
        }
    }

    /// Runs cases against the client: the loopback server plays the case, an echoing client
    /// answers, and both sides' records are checked.
    enum AutobahnRunner {
        /// The server's side: writes the case, reads the echoes, and closes (clean cases) or
        /// reads until the client closes.
        static func play(
            _ autobahn: AutobahnCase, on peer: LoopbackServer.WebSocketPeer, into record: PeerRecord
        ) {
            var echoes: [WebSocketMessage] = []
            do {
                for write in autobahn.writes {
                    guard let size = write.pieces else {
                        try peer.sendRaw(write.bytes)
                        continue
                    }
                    for start in stride(from: 0, to: write.bytes.count, by: size) {
                        try peer.sendRaw(Array(write.bytes[start..<min(start + size, write.bytes.count)]))
                    }
                }
                while echoes.count < autobahn.messages.count, let echo = try peer.receive(timeout: 30) {
                    echoes.append(echo)
                }
                if autobahn.ending == .clean, peer.closeReceived == nil {
                    try peer.close(code: .normal, reason: "", timeout: 30)
                } else {
                    while try peer.receive(timeout: 30) != nil {}
                }
                record.finish(peer, echoes: echoes, failure: nil)
            } catch {
                // A client that failed the connection closes it at once: bytes the server was
                // still writing (in chops) then meet a closed or reset connection, maybe before
                // its close frame was read. Any other error, or one in another case, counts.
                let cut =
                    (error as? SystemCallFailure).map { [EPIPE, ECONNRESET].contains($0.code) } ?? false
                record.finish(
                    peer, echoes: echoes, failure: peer.closeReceived != nil || cut ? nil : error, cut: cut)
            }
        }

        /// Plays `autobahn` against an echoing client and checks what each side saw.
        static func check(_ autobahn: AutobahnCase) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let record = PeerRecord()
            server.webSocket("/case") { peer in play(autobahn, on: peer, into: record) }
            let api = try SocketAPI(server: server)
            let socket = try await api.webSocket(route: api.get(endpoint: "/case"), options: autobahn.options)
                .value
            var received: [WebSocketMessage] = []
            do {
                for try await message in socket.messages {
                    received.append(message)
                    socket.send(message)
                }
            } catch {}
            let outcome = await socket.closed.result
            #expect(await server.waitUntilNoOpenConnections())

            #expect(record.failure == nil, "the server's side failed: \(String(describing: record.failure))")
            let expected = autobahn.messages.map(\.value)
            #expect(received == expected, "the messages the application received")
            #expect(record.pongs == autobahn.pongs, "the pongs the server received")
            switch autobahn.ending {
            case .clean:
                #expect(!record.cut, "the client closed the connection before the server's close")
                #expect(record.echoes == expected)
                #expect(record.close?.code == .normal)
                #expect(try outcome.get() == WebSocketClose(code: .normal, reason: "", initiator: .server))
            case .fails(let code):
                // The echoes of messages before the violation may or may not have gone out
                // before the client failed the connection (Autobahn counts both as passing).
                #expect(expected.starts(with: record.echoes))
                // Cut while the server still wrote, the close frame may be lost with the
                // connection; the client's own outcome below still names the code.
                if !record.cut || record.close != nil {
                    #expect(record.close?.code?.rawValue == code, "the close code the client sent")
                }
                guard case .failure(let error) = outcome,
                    case .protocolViolation(let sent, _) = error as? WebSocketError
                else {
                    Issue.record("expected the client to fail with \(code), got \(outcome)")
                    return
                }
                #expect(sent.rawValue == code)
            case .serverCloses(let code, let reason):
                // Its answer read, the client may close the connection while the server still
                // writes what followed its close (a ping).
                #expect(
                    !record.cut || record.close != nil,
                    "the client closed the connection before answering the close")
                #expect(expected.starts(with: record.echoes))
                #expect(record.close?.code?.rawValue == code, "the client echoes the server's code")
                let expected = WebSocketClose(
                    code: code.map { WebSocketCloseCode($0) } ?? .noStatusReceived, reason: reason,
                    initiator: .server)
                #expect(try outcome.get() == expected)
            }
        }
    }
#endif
