#if os(Linux)
    import Foundation

    @testable import Osprey

    /// Autobahn's client section 7: the closing handshake. The client answers a close with the
    /// same code, and after a close nothing more is delivered or answered; a close frame that is
    /// malformed, or carries a code that may not be sent, fails with 1002 (a reason that is not
    /// UTF-8 with 1007).
    enum AutobahnCloseCases {
        typealias F = ServerFrame

        static let handshake: [AutobahnCase] = {
            let normal = F.close(1000)
            let large = String(repeating: "BAsd7&jh23", count: 256 << 10 / 10)
            return [
                AutobahnCase(
                    id: "7.1.1", summary: "a text, then a close",
                    writes: [.together(F.text("Hello World!"), normal)], messages: [.text("Hello World!")],
                    ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.1.2", summary: "two closes", writes: [.together(normal, normal)],
                    ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.1.3", summary: "a close, then a ping (never answered)",
                    writes: [.together(normal, F.ping(Array("Hello World!".utf8)))],
                    ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.1.4", summary: "a close, then a text (never delivered)",
                    writes: [.together(normal, F.text("Hello World!"))], ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.1.5", summary: "a fragment, a close, the last fragment (never delivered)",
                    writes: [.together(F.text("fragment1", fin: false), normal, F.continuation("fragment2"))],
                    ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.1.6", summary: "a 256 KiB text, a close, a ping",
                    writes: [.together(F.text(large), normal, F.ping(Array("Hello World!".utf8)))],
                    messages: [.text(large)], ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.3.1", summary: "a close without payload", writes: [.together(F.close(nil))],
                    ending: .serverCloses(nil)),
                AutobahnCase(
                    id: "7.3.2", summary: "a close with a 1-byte payload",
                    writes: [.together(F.frame(0x8, [0x03]))],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "7.3.3", summary: "a close with a code and no reason", writes: [.together(normal)],
                    ending: .serverCloses(1000)),
                AutobahnCase(
                    id: "7.3.4", summary: "a close with a code and a reason",
                    writes: [.together(F.close(1000, reason: Array("Hello World!".utf8)))],
                    ending: .serverCloses(1000, reason: "Hello World!")),
                AutobahnCase(
                    id: "7.3.5", summary: "a close with a reason of 123 bytes",
                    writes: [.together(F.close(1000, reason: Array(repeating: 0x2A, count: 123)))],
                    ending: .serverCloses(1000, reason: String(repeating: "*", count: 123))),
                AutobahnCase(
                    id: "7.3.6", summary: "a close with a reason of 124 bytes (a payload of 126)",
                    writes: [.together(F.close(1000, reason: Array(repeating: 0x2A, count: 124)))],
                    ending: .fails(1002)),
                AutobahnCase(
                    id: "7.5.1", summary: "a close whose reason is not UTF-8",
                    writes: [.together(F.close(1000, reason: AutobahnUTF8Cases.broken))], ending: .fails(1007)
                ),
            ]
        }()

        /// 7.7: codes a close may carry are echoed; 7.9 and 7.13: codes it may not fail with 1002.
        static let codes: [AutobahnCase] = {
            let valid: [UInt16] = [
                1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999,
            ]
            let invalid: [UInt16] = [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999]
            return valid.enumerated().map { index, code in
                AutobahnCase(
                    id: "7.7.\(index + 1)", summary: "a close with the code \(code)",
                    writes: [.together(F.close(code))], ending: .serverCloses(code))
            }
                + invalid.enumerated().map { index, code in
                    AutobahnCase(
                        id: "7.9.\(index + 1)",
                        summary: "a close with the code \(code), which may not be sent",
                        writes: [.together(F.close(code))], ending: .fails(1002))
                }
                + [5000, 65535].enumerated().map { index, code in
                    AutobahnCase(
                        id: "7.13.\(index + 1)", summary: "a close with the code \(code), past the range",
                        writes: [.together(F.close(UInt16(code)))], ending: .fails(1002))
                }
        }()
    }
#endif
