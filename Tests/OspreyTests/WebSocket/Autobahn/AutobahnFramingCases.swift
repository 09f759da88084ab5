#if os(Linux)
    import Foundation

    @testable import Osprey

    /// Autobahn's client sections 1 to 5: framing, pings and pongs, reserved bits, opcodes,
    /// fragmentation.
    enum AutobahnFramingCases {
        typealias F = ServerFrame

        /// 1.1.x and 1.2.x: text and binary messages of the lengths around each length form.
        static let framing: [AutobahnCase] = {
            let lengths = [0, 125, 126, 127, 128, 65535, 65536]
            var cases: [AutobahnCase] = []
            for (section, binary) in [(1, false), (2, true)] {
                for (index, length) in lengths.enumerated() {
                    let payload = [UInt8](repeating: binary ? 0xFE : 0x2A, count: length)
                    let message: AutobahnCase.Message =
                        binary ? .binary(payload) : .text(String(decoding: payload, as: UTF8.self))
                    cases.append(
                        AutobahnCase(
                            id: "1.\(section).\(index + 1)",
                            summary: "\(binary ? "binary" : "text") of \(length) bytes",
                            writes: [.together(F.frame(binary ? 0x2 : 0x1, payload))], messages: [message],
                            ending: .clean))
                }
                let payload = [UInt8](repeating: binary ? 0xFE : 0x2A, count: 65536)
                cases.append(
                    AutobahnCase(
                        id: "1.\(section).8",
                        summary: "\(binary ? "binary" : "text") of 65536 bytes in 997-byte chops",
                        writes: [.chopped(997, F.frame(binary ? 0x2 : 0x1, payload))],
                        messages: [
                            binary ? .binary(payload) : .text(String(decoding: payload, as: UTF8.self))
                        ],
                        ending: .clean))
            }
            return cases
        }()

        /// 2.x: pings are answered with their payload, pongs nobody asked for are ignored.
        static let pings: [AutobahnCase] = {
            let hello = Array("Hello, world!".utf8)
            let binary: [UInt8] = [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF]
            let full = [UInt8](repeating: 0xFE, count: 125)
            let unsolicited = Array("unsolicited pong payload".utf8)
            let tenPayloads = (0..<10).map { Array("payload-\($0)".utf8) }
            return [
                AutobahnCase(
                    id: "2.1", summary: "a ping without payload", writes: [.together(F.ping())], pongs: [[]],
                    ending: .clean),
                AutobahnCase(
                    id: "2.2", summary: "a ping with a small text payload",
                    writes: [.together(F.ping(hello))],
                    pongs: [hello], ending: .clean),
                AutobahnCase(
                    id: "2.3", summary: "a ping with a small binary payload",
                    writes: [.together(F.ping(binary))],
                    pongs: [binary], ending: .clean),
                AutobahnCase(
                    id: "2.4", summary: "a ping with a payload of 125 bytes",
                    writes: [.together(F.ping(full))],
                    pongs: [full], ending: .clean),
                AutobahnCase(
                    id: "2.5", summary: "a ping with a payload of 126 bytes",
                    writes: [.together(F.ping(full + [0xFE]))], ending: .fails(1002)),
                AutobahnCase(
                    id: "2.6", summary: "a ping of 125 bytes in 1-byte chops",
                    writes: [.chopped(1, F.ping(full))],
                    pongs: [full], ending: .clean),
                AutobahnCase(
                    id: "2.7", summary: "an unsolicited pong without payload", writes: [.together(F.pong())],
                    ending: .clean),
                AutobahnCase(
                    id: "2.8", summary: "an unsolicited pong with payload",
                    writes: [.together(F.pong(unsolicited))],
                    ending: .clean),
                AutobahnCase(
                    id: "2.9", summary: "an unsolicited pong, then a ping",
                    writes: [.together(F.pong(unsolicited), F.ping(Array("ping payload".utf8)))],
                    pongs: [Array("ping payload".utf8)], ending: .clean),
                AutobahnCase(
                    id: "2.10", summary: "10 pings: each is answered",
                    writes: [Write(bytes: tenPayloads.flatMap(F.ping))], pongs: tenPayloads, ending: .clean),
                AutobahnCase(
                    id: "2.11", summary: "10 pings in 1-byte chops: each is answered",
                    writes: [Write(bytes: tenPayloads.flatMap(F.ping), pieces: 1)], pongs: tenPayloads,
                    ending: .clean),
            ]
        }()

        typealias Write = AutobahnCase.Write

        /// 3.x: a frame with a reserved bit set (no extension was agreed) fails with 1002.
        static let reservedBits: [AutobahnCase] = {
            let hello = F.text("Hello")
            let ping = F.ping(Array("Hello".utf8))
            return [
                AutobahnCase(
                    id: "3.1", summary: "a text with RSV = 1", writes: [.together(F.text("Hello", rsv: 1))],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "3.2", summary: "a text, a text with RSV = 2, a ping",
                    writes: [.together(hello, F.text("Hello", rsv: 2), ping)], messages: [.text("Hello")],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "3.3", summary: "a text, a text with RSV = 3, a ping, frame-wise",
                    writes: [.together(hello), .together(F.text("Hello", rsv: 3)), .together(ping)],
                    messages: [.text("Hello")], ending: .fails(1002)),
                AutobahnCase(
                    id: "3.4", summary: "a text, a text with RSV = 4, a ping, in 1-byte chops",
                    writes: [.chopped(1, hello, F.text("Hello", rsv: 4), ping)], messages: [.text("Hello")],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "3.5", summary: "a binary with RSV = 5",
                    writes: [.together(F.frame(0x2, [0, 1, 2, 3], rsv: 5))], ending: .fails(1002)),
                AutobahnCase(
                    id: "3.6", summary: "a ping with RSV = 6",
                    writes: [.together(F.frame(0x9, [1, 2], rsv: 6))],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "3.7", summary: "a close with RSV = 7",
                    writes: [.together(F.frame(0x8, [0x03, 0xE8], rsv: 7))], ending: .fails(1002)),
            ]
        }()

        /// 4.x: reserved opcodes, data (3–7) and control (11–15), fail with 1002.
        static let opcodes: [AutobahnCase] = {
            let payload = Array("reserved opcode payload".utf8)
            var cases: [AutobahnCase] = []
            for (section, opcodes) in [(1, Array(UInt8(3)...7)), (2, Array(UInt8(11)...15))] {
                for (index, opcode) in opcodes.enumerated() {
                    let id = "4.\(section).\(index + 1)"
                    let summary = "reserved opcode \(opcode)"
                    switch index {
                    case 0:
                        cases.append(
                            AutobahnCase(
                                id: id, summary: summary, writes: [.together(F.frame(opcode, []))],
                                ending: .fails(1002)))
                    case 1:
                        cases.append(
                            AutobahnCase(
                                id: id, summary: summary + " with payload",
                                writes: [.together(F.frame(opcode, payload))], ending: .fails(1002)))
                    default:
                        // A valid text first, a ping after: the text is delivered, the ping never.
                        let frames = F.text("Hello") + F.frame(opcode, index == 2 ? [] : payload) + F.ping()
                        cases.append(
                            AutobahnCase(
                                id: id, summary: "a text, then " + summary + ", then a ping",
                                writes: [Write(bytes: frames, pieces: index == 4 ? 1 : nil)],
                                messages: [.text("Hello")], ending: .fails(1002)))
                    }
                }
            }
            return cases
        }()

        /// 5.x: fragmented messages, control frames between fragments, and fragments that
        /// continue nothing.
        static let fragmentation: [AutobahnCase] = {
            let first = F.text("fragment1", fin: false)
            let second = F.continuation("fragment2")
            let joined = AutobahnCase.Message.text("fragment1fragment2")
            let pongme = Array("pongme!".utf8)
            let orphanFinal = F.continuation("non-continuation payload")
            let orphanOpen = F.continuation("non-continuation payload", fin: false)
            let hello = F.text("Hello, world!")
            var cases: [AutobahnCase] = [
                AutobahnCase(
                    id: "5.1", summary: "a ping in 2 fragments",
                    writes: [.together(F.frame(0x9, Array("fragment1".utf8), fin: false), second)],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "5.2", summary: "a pong in 2 fragments",
                    writes: [.together(F.frame(0xA, Array("fragment1".utf8), fin: false), second)],
                    ending: .fails(1002)),
            ]
            // 5.3–5.5: a text in 2 fragments; 5.6–5.8 with a ping between; 5.9–5.14: continuations
            // with nothing to continue. Each in one write, frame-wise, and in 1-byte chops.
            let groups:
                [(
                    first: Int, frames: [[UInt8]], summary: String, messages: [AutobahnCase.Message],
                    pongs: [[UInt8]], ending: AutobahnCase.Ending
                )] = [
                    (3, [first, second], "a text in 2 fragments", [joined], [], .clean),
                    (
                        6, [first, F.ping(pongme), second], "a text in 2 fragments, a ping between", [joined],
                        [pongme], .clean
                    ),
                    (
                        9, [orphanFinal, hello], "a final continuation with nothing to continue, then a text",
                        [], [], .fails(1002)
                    ),
                    (
                        12, [orphanOpen, hello], "a continuation with nothing to continue, then a text", [],
                        [], .fails(1002)
                    ),
                ]
            for group in groups {
                let ways: [(String, [AutobahnCase.Write])] = [
                    ("", [Write(bytes: group.frames.flatMap { $0 })]),
                    (", frame-wise", group.frames.map { Write(bytes: $0) }),
                    (", in 1-byte chops", [Write(bytes: group.frames.flatMap { $0 }, pieces: 1)]),
                ]
                for (offset, way) in ways.enumerated() {
                    cases.append(
                        AutobahnCase(
                            id: "5.\(group.first + offset)", summary: group.summary + way.0, writes: way.1,
                            messages: group.messages, pongs: group.pongs, ending: group.ending))
                }
            }
            cases += [
                AutobahnCase(
                    id: "5.15", summary: "a text in 2 fragments, then fragments continuing nothing",
                    writes: [
                        .together(
                            first, second, F.continuation("fragment3", fin: false),
                            F.continuation("fragment4"))
                    ], messages: [joined], ending: .fails(1002)),
                AutobahnCase(
                    id: "5.16",
                    summary: "twice: an open continuation with nothing to continue, a text in 2 fragments",
                    writes: [.together(orphanOpen, first, second, orphanOpen, first, second)],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "5.17",
                    summary: "twice: a final continuation with nothing to continue, a text in 2 fragments",
                    writes: [.together(orphanFinal, first, second, orphanFinal, first, second)],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "5.18", summary: "a text in 2 fragments, both with the text opcode",
                    writes: [.together(first, F.text("fragment2"))], ending: .fails(1002)),
            ]
            let pong1 = Array("pongme 1!".utf8)
            let pong2 = Array("pongme 2!".utf8)
            let five = [
                F.text("fragment1", fin: false), F.continuation("fragment2", fin: false), F.ping(pong1),
                F.continuation("fragment3", fin: false), F.continuation("fragment4", fin: false),
                F.ping(pong2),
                F.continuation("fragment5"),
            ]
            let whole = AutobahnCase.Message.text("fragment1fragment2fragment3fragment4fragment5")
            cases += [
                AutobahnCase(
                    id: "5.19", summary: "a text in 5 fragments, pings between",
                    writes: [
                        .together(five[0], five[1], five[2]), .together(five[3], five[4], five[5], five[6]),
                    ],
                    messages: [whole], pongs: [pong1, pong2], ending: .clean),
                AutobahnCase(
                    id: "5.20", summary: "a text in 5 fragments, pings between, frame-wise",
                    writes: five.map { Write(bytes: $0) }, messages: [whole], pongs: [pong1, pong2],
                    ending: .clean),
            ]
            return cases
        }()
    }
#endif
