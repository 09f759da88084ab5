#if canImport(CZlib)
    internal import CZlib
#endif

/// A raw zlib stream, deflating or inflating, and the buffer each step writes into: what the
/// message deflater and inflater share. Used by one owner at a time, under its lock.
final class ZlibStream: @unchecked Sendable {
    // @unchecked: the stream and buffer are used by one owner at a time, under its lock.

    /// Which way the stream works.
    enum Direction {
        /// Raw deflate with a sync flush after each input (the output then ends `00 00 FF FF`).
        case deflate
        /// Raw inflate.
        case inflate
    }

    /// What one step did.
    struct Step {
        /// zlib's answer: negative on failure; for inflating, 1 at the end of a final block.
        var result: Int32
        /// Input bytes taken.
        var consumed: Int
        /// Output bytes written (read them with ``output(_:)``).
        var produced: Int
        /// Whether the output buffer was filled: more output may be pending.
        var filledBuffer: Bool
    }

    private let stream: OpaquePointer
    private let direction: Direction
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    /// A stream with a window of `windowBits`; nil when zlib cannot be loaded (or refuses the window).
    init?(_ direction: Direction, windowBits: Int) {
        #if canImport(CZlib)
            let made =
                switch direction {
                case .deflate: czlib_deflater_create(Int32(windowBits))
                case .inflate: czlib_inflater_create(Int32(windowBits))
                }
            guard let made else { return nil }
            stream = made
            self.direction = direction
        #else
            return nil
        #endif
    }

    deinit {
        #if canImport(CZlib)
            czlib_stream_destroy(stream)
        #endif
    }

    /// Feeds `input` to zlib once, writing into the buffer from its start.
    func step(_ input: UnsafeRawBufferPointer) -> Step {
        #if canImport(CZlib)
            var consumed = 0
            var produced = 0
            let result = buffer.withUnsafeMutableBytes { room in
                switch direction {
                case .deflate:
                    czlib_deflate(
                        stream, input.baseAddress, input.count, &consumed, room.baseAddress, room.count,
                        &produced)
                case .inflate:
                    czlib_inflate(
                        stream, input.baseAddress, input.count, &consumed, room.baseAddress, room.count,
                        &produced)
                }
            }
            return Step(
                result: result, consumed: consumed, produced: produced, filledBuffer: produced == buffer.count
            )
        #else
            return Step(result: -1, consumed: 0, produced: 0, filledBuffer: false)
        #endif
    }

    /// The output of the last step.
    func output(_ step: Step) -> ArraySlice<UInt8> {
        buffer[..<step.produced]
    }

    /// Forgets the stream's history: the next input starts afresh (no context takeover).
    func reset() {
        #if canImport(CZlib)
            _ = czlib_stream_reset(stream)
        #endif
    }
}
