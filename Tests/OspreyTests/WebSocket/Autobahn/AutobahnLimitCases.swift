#if os(Linux)
    import Foundation
    import Testing

    @testable import Osprey

    /// Autobahn's client section 9: large messages, many frames, small chops and many messages,
    /// with the client's limits raised to the suite's sizes (32 MiB). Described here and made
    /// when a test runs, so that the payloads are not held for the whole run.
    struct AutobahnLimitCase: Sendable, CustomTestStringConvertible {
        let id: String
        let binary: Bool
        /// Bytes per message.
        let size: Int
        /// Bytes per frame (the message fragmented), or nil for one frame.
        var frameSize: Int?
        /// Written in pieces of this many bytes, or nil for one write.
        var chop: Int?
        /// How many messages.
        var count = 1

        var testDescription: String {
            var text = "\(id) \(count == 1 ? "a" : "\(count)") \(binary ? "binary" : "text") of \(size) bytes"
            if let frameSize { text += " in frames of \(frameSize)" }
            if let chop { text += " in \(chop)-byte chops" }
            return text
        }

        /// The case to run.
        func make() -> AutobahnCase {
            var writes: [AutobahnCase.Write] = []
            var messages: [AutobahnCase.Message] = []
            for index in 0..<count {
                // Text of printable ASCII, binary of every byte value, different for each message.
                let payload = (0..<size).map { offset -> UInt8 in
                    binary ? UInt8(truncatingIfNeeded: offset &+ index) : UInt8(0x21 + (offset &+ index) % 94)
                }
                messages.append(
                    binary ? .binary(payload) : .text(String(decoding: payload, as: UTF8.self)))
                var frames: [UInt8] = []
                let step = frameSize ?? max(size, 1)
                let starts = Array(stride(from: 0, to: max(size, 1), by: step))
                for (number, start) in starts.enumerated() {
                    let piece = Array(payload[min(start, size)..<min(start + step, size)])
                    let opcode: UInt8 = number == 0 ? (binary ? 0x2 : 0x1) : 0x0
                    frames += ServerFrame.frame(opcode, piece, fin: number == starts.count - 1)
                }
                writes.append(AutobahnCase.Write(bytes: frames, pieces: chop))
            }
            var options = AutobahnCase.uncompressed
            options.maximumFrameSize = 32 << 20
            options.maximumMessageSize = 32 << 20
            options.bufferSize = 32 << 20
            return AutobahnCase(
                id: id, summary: testDescription, writes: writes, messages: messages, ending: .clean,
                options: options)
        }

        static let all: [AutobahnLimitCase] = {
            var cases: [AutobahnLimitCase] = []
            for (kind, binary) in [(0, false), (1, true)] {
                let sizes = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 8 << 20, 16 << 20]
                cases += sizes.enumerated().map { index, size in
                    AutobahnLimitCase(id: "9.\(1 + kind).\(index + 1)", binary: binary, size: size)
                }
                let frames = [64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
                cases += frames.enumerated().map { index, frame in
                    AutobahnLimitCase(
                        id: "9.\(3 + kind).\(index + 1)", binary: binary, size: 4 << 20, frameSize: frame)
                }
                let chops = [64, 128, 256, 512, 1024, 2048]
                cases += chops.enumerated().map { index, chop in
                    AutobahnLimitCase(
                        id: "9.\(5 + kind).\(index + 1)", binary: binary, size: 1 << 20, chop: chop)
                }
                let small = [0, 16, 64, 256, 1024, 4096]
                cases += small.enumerated().map { index, size in
                    AutobahnLimitCase(
                        id: "9.\(7 + kind).\(index + 1)", binary: binary, size: size, count: 1000)
                }
            }
            return cases
        }()
    }
#endif
