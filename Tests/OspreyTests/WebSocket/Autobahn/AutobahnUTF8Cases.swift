#if os(Linux)
    import Foundation

    @testable import Osprey

    /// Autobahn's client section 6: text must be UTF-8, checked as it arrives. Valid text is
    /// echoed; invalid text fails the connection with 1007, also when split across fragments.
    /// The byte sequences are Markus Kuhn's UTF-8 decoder stress test, as Autobahn uses it.
    enum AutobahnUTF8Cases {
        typealias F = ServerFrame
        typealias Write = AutobahnCase.Write

        /// "κόσμε".
        static let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
        /// "Hello-µ@ßöäüàá-UTF-8!!".
        static let hello = Array("Hello-µ@ßöäüàá-UTF-8!!".utf8)
        /// κόσμε with a lone surrogate (U+D800) inside, then "edited".
        static let broken: [UInt8] = kosme + [0xED, 0xA0, 0x80] + Array("edited".utf8)

        /// A case sending `bytes` as a text message: whole, in fragments of `fragment` bytes, or
        /// in 1-byte chops of one frame.
        static func text(
            _ id: String, _ summary: String, _ bytes: [UInt8], fragment: Int? = nil, chopped: Bool = false
        ) -> AutobahnCase {
            var frames: [UInt8] = []
            if let fragment, !bytes.isEmpty {
                let starts = Array(stride(from: 0, to: bytes.count, by: fragment))
                for (index, start) in starts.enumerated() {
                    let piece = Array(bytes[start..<min(start + fragment, bytes.count)])
                    frames += F.frame(index == 0 ? 0x1 : 0x0, piece, fin: index == starts.count - 1)
                }
            } else {
                frames = F.frame(0x1, bytes)
            }
            let valid = String(validating: bytes, as: UTF8.self)
            return AutobahnCase(
                id: id, summary: summary + (valid == nil ? " (invalid)" : ""),
                writes: [Write(bytes: frames, pieces: chopped ? 1 : nil)],
                messages: valid.map { [.text($0)] } ?? [],
                ending: valid == nil ? .fails(1007) : .clean)
        }

        /// 6.1 to 6.5: empty and fragmented text, valid and not, whole and split.
        static let fragments: [AutobahnCase] = [
            text("6.1.1", "an empty text", []),
            AutobahnCase(
                id: "6.1.2", summary: "a text of 3 empty fragments",
                writes: [
                    .together(F.text("", fin: false), F.continuation("", fin: false), F.continuation(""))
                ],
                messages: [.text("")], ending: .clean),
            AutobahnCase(
                id: "6.1.3", summary: "a text of 3 fragments, the first and last empty",
                writes: [
                    .together(
                        F.text("", fin: false), F.continuation("middle frame payload", fin: false),
                        F.continuation(""))
                ], messages: [.text("middle frame payload")], ending: .clean),
            text("6.2.1", "valid UTF-8 in one fragment", hello),
            text("6.2.2", "valid UTF-8 in fragments of 14 bytes", hello, fragment: 14),
            text("6.2.3", "valid UTF-8 in 1-byte chops", hello, chopped: true),
            text("6.2.4", "κόσμε in 1-byte fragments", kosme, fragment: 1),
            text("6.3.1", "κόσμε with a surrogate, in one fragment", broken),
            text("6.3.2", "κόσμε with a surrogate, in 1-byte fragments", broken, fragment: 1),
            // 6.4: the connection fails at the first invalid byte, before the rest arrives.
            text(
                "6.4.1", "invalid bytes in the second of 3 fragments",
                kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8), fragment: 11),
            text(
                "6.4.2", "invalid bytes at the start of the second fragment",
                kosme + [0xF4] + [0x90, 0x80, 0x80] + Array("edited".utf8), fragment: 12),
            text(
                "6.4.3", "invalid bytes, in 1-byte chops",
                kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8), chopped: true),
            text(
                "6.4.4", "invalid bytes, in 1-byte fragments",
                kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8), fragment: 1),
            text("6.5.1", "κόσμε", kosme),
            text("6.5.2", "κόσμε in 1-byte fragments", kosme, fragment: 1),
            text("6.5.3", "κόσμε in 2-byte fragments", kosme, fragment: 2),
            text("6.5.4", "κόσμε in 3-byte fragments", kosme, fragment: 3),
            text("6.5.5", "κόσμε in 1-byte chops", kosme, chopped: true),
        ]

        /// 6.6: every prefix of κόσμε: those that end inside a character are invalid.
        static let prefixes: [AutobahnCase] = (1...kosme.count).map { length in
            text("6.6.\(length)", "the first \(length) bytes of κόσμε", Array(kosme.prefix(length)))
        }

        /// 6.7 to 6.23: the sequences of the stress test, each as one text.
        static let sequences: [AutobahnCase] = {
            var groups: [(section: Int, summary: String, sequences: [[UInt8]])] = [
                (
                    7, "the first sequence of a length",
                    [[0x00], [0xC2, 0x80], [0xE0, 0xA0, 0x80], [0xF0, 0x90, 0x80, 0x80]]
                ),
                (
                    8, "5- and 6-byte sequences",
                    [[0xF8, 0x88, 0x80, 0x80, 0x80], [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]]
                ),
                (
                    9, "the last sequence of a length",
                    [[0x7F], [0xDF, 0xBF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF]]
                ),
                (
                    10, "sequences past U+10FFFF",
                    [
                        [0xF7, 0xBF, 0xBF, 0xBF], [0xFB, 0xBF, 0xBF, 0xBF, 0xBF],
                        [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF],
                    ]
                ),
                (
                    11, "other boundaries",
                    [
                        [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD], [0xF4, 0x8F, 0xBF, 0xBF],
                        [0xF4, 0x90, 0x80, 0x80],
                    ]
                ),
                (
                    12, "unexpected continuation bytes",
                    [
                        [0x80], [0xBF], [0x80, 0xBF], [0x80, 0xBF, 0x80], [0x80, 0xBF, 0x80, 0xBF],
                        [0x80, 0xBF, 0x80, 0xBF, 0x80], [0x80, 0xBF, 0x80, 0xBF, 0x80, 0xBF],
                        Array(0x80...0xBF),
                    ]
                ),
                (
                    13, "lonely start bytes, each followed by a space",
                    [
                        Array(0xC0...0xDF).flatMap { [$0, 0x20] }, Array(0xE0...0xEF).flatMap { [$0, 0x20] },
                        Array(0xF0...0xF7).flatMap { [$0, 0x20] }, Array(0xF8...0xFB).flatMap { [$0, 0x20] },
                        Array(0xFC...0xFD).flatMap { [$0, 0x20] },
                    ]
                ),
                (
                    14, "sequences missing their last byte",
                    [
                        [0xC0], [0xE0, 0x80], [0xF0, 0x80, 0x80], [0xF8, 0x80, 0x80, 0x80],
                        [0xFC, 0x80, 0x80, 0x80, 0x80],
                        [0xDF], [0xEF, 0xBF], [0xF7, 0xBF, 0xBF], [0xFB, 0xBF, 0xBF, 0xBF],
                        [0xFD, 0xBF, 0xBF, 0xBF, 0xBF],
                    ]
                ),
                (16, "impossible bytes", [[0xFE], [0xFF], [0xFE, 0xFE, 0xFF, 0xFF]]),
                (
                    17, "overlong slashes",
                    [
                        [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF],
                        [0xF8, 0x80, 0x80, 0x80, 0xAF],
                        [0xFC, 0x80, 0x80, 0x80, 0x80, 0xAF],
                    ]
                ),
                (
                    18, "the largest overlong sequences",
                    [
                        [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF],
                        [0xF8, 0x87, 0xBF, 0xBF, 0xBF],
                        [0xFC, 0x83, 0xBF, 0xBF, 0xBF, 0xBF],
                    ]
                ),
                (
                    19, "overlong NULs",
                    [
                        [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80],
                        [0xF8, 0x80, 0x80, 0x80, 0x80],
                        [0xFC, 0x80, 0x80, 0x80, 0x80, 0x80],
                    ]
                ),
                (
                    20, "single UTF-16 surrogates",
                    [
                        [0xED, 0xA0, 0x80], [0xED, 0xAD, 0xBF], [0xED, 0xAE, 0x80], [0xED, 0xAF, 0xBF],
                        [0xED, 0xB0, 0x80], [0xED, 0xBE, 0x80], [0xED, 0xBF, 0xBF],
                    ]
                ),
                (
                    21, "paired UTF-16 surrogates",
                    [
                        [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80], [0xED, 0xA0, 0x80, 0xED, 0xBF, 0xBF],
                        [0xED, 0xAD, 0xBF, 0xED, 0xB0, 0x80], [0xED, 0xAD, 0xBF, 0xED, 0xBF, 0xBF],
                        [0xED, 0xAE, 0x80, 0xED, 0xB0, 0x80], [0xED, 0xAE, 0x80, 0xED, 0xBF, 0xBF],
                        [0xED, 0xAF, 0xBF, 0xED, 0xB0, 0x80], [0xED, 0xAF, 0xBF, 0xED, 0xBF, 0xBF],
                    ]
                ),
                (23, "specials U+FFF9 to U+FFFD", (0xB9...0xBD).map { [0xEF, 0xBF, $0] }),
            ]
            // 6.15: the sequences of 6.14 joined.
            let missingLast = groups.first { $0.section == 14 }?.sequences ?? []
            groups.append((15, "the sequences missing their last byte, joined", [missingLast.flatMap { $0 }]))
            // 6.22: the noncharacters U+FFFE, U+FFFF and the last two of each plane 1–16 (valid).
            let noncharacters =
                [[0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBF]]
                + (1...16).flatMap { plane -> [[UInt8]] in
                    let scalarBase = UInt32(plane) << 16 | 0xFFFE
                    return [scalarBase, scalarBase + 1].map { Array(String(Unicode.Scalar($0)!).utf8) }
                }
            groups.append((22, "noncharacters", noncharacters))
            return groups.sorted { $0.section < $1.section }.flatMap { group in
                group.sequences.enumerated().map { index, bytes in
                    text("6.\(group.section).\(index + 1)", group.summary, bytes)
                }
            }
        }()
    }
#endif
