/// Reads a `Transfer-Encoding: chunked` body (RFC 9112 §7.1) as it arrives, for the one place
/// Osprey reads HTTP/1.1 itself: the answer to an upgrade request that was not `101` (libcurl
/// frames every other response).
///
/// Bytes here are the server's: any of them give data or an error, never a crash; a size line or
/// the trailers longer than their limits, or a size past 64 bits, are errors.
package struct ChunkedBodyDecoder: Sendable {
    private enum State: Equatable {
        /// Reading a size line (hex digits, maybe `;extensions`), up to its LF.
        case size
        /// Reading `remaining` bytes of data.
        case data(remaining: UInt64)
        /// Expecting the CRLF after a chunk's data.
        case dataEnd
        /// Reading trailer lines after the last chunk, up to an empty one.
        case trailers(lineIsEmpty: Bool)
        case done
    }

    private var state = State.size
    private var line: [UInt8] = []
    private var trailerBytes = 0

    /// The longest size line (with extensions) and the most trailer bytes accepted.
    static let lineLimit = 4096
    static let trailerLimit = 16 << 10

    package init() {}

    /// Whether the last chunk and the trailers have arrived: bytes after them are not the body's.
    package var isComplete: Bool { state == .done }

    /// Why the body cannot be read.
    package struct Malformed: Error, Equatable, CustomStringConvertible {
        package let reason: String
        package var description: String { "malformed chunked body: \(reason)" }
    }

    /// Reads `bytes`, handing each run of body data to `data`.
    /// - Returns: how many of `bytes` belonged to the body (fewer than all once it is complete).
    /// - Throws: ``Malformed`` when the framing is broken.
    package mutating func take(
        _ bytes: UnsafeRawBufferPointer, data: (UnsafeRawBufferPointer) -> Void
    ) throws(Malformed) -> Int {
        var index = 0
        while index < bytes.count {
            switch state {
            case .done:
                return index
            case .data(let remaining):
                let count = Int(min(UInt64(bytes.count - index), remaining))
                data(UnsafeRawBufferPointer(rebasing: bytes[index..<index + count]))
                index += count
                state = remaining == UInt64(count) ? .dataEnd : .data(remaining: remaining - UInt64(count))
            case .dataEnd:
                let byte = bytes[index]
                index += 1
                if byte == 0x0D, line.isEmpty {
                    line.append(byte)
                } else if byte == 0x0A {
                    line = []
                    state = .size
                } else {
                    throw Malformed(reason: "no line end after a chunk's data")
                }
            case .size:
                let byte = bytes[index]
                index += 1
                guard byte == 0x0A else {
                    guard line.count < Self.lineLimit else {
                        throw Malformed(reason: "a chunk size line too long")
                    }
                    line.append(byte)
                    continue
                }
                let size = try Self.size(of: line)
                line = []
                state = size == 0 ? .trailers(lineIsEmpty: true) : .data(remaining: size)
            case .trailers(let lineIsEmpty):
                let byte = bytes[index]
                index += 1
                trailerBytes += 1
                guard trailerBytes <= Self.trailerLimit else { throw Malformed(reason: "trailers too long") }
                if byte == 0x0A {
                    state = lineIsEmpty ? .done : .trailers(lineIsEmpty: true)
                } else if byte != 0x0D {
                    state = .trailers(lineIsEmpty: false)
                }
            }
        }
        return state == .done ? index : bytes.count
    }

    /// The hex size at the start of a size line (before `;` extensions and blanks, CR dropped).
    private static func size(of line: [UInt8]) throws(Malformed) -> UInt64 {
        var size: UInt64 = 0
        var digits = 0
        for byte in line {
            let value: UInt64
            switch byte {
            case 0x30...0x39: value = UInt64(byte - 0x30)
            case 0x41...0x46: value = UInt64(byte - 0x41 + 10)
            case 0x61...0x66: value = UInt64(byte - 0x61 + 10)
            case 0x3B, 0x20, 0x09, 0x0D:
                guard digits > 0 else { throw Malformed(reason: "a chunk size line without a size") }
                return size
            default:
                throw Malformed(reason: "a chunk size that is not hexadecimal")
            }
            guard size >> 60 == 0 else { throw Malformed(reason: "a chunk size past 64 bits") }
            size = size << 4 | value
            digits += 1
        }
        guard digits > 0 else { throw Malformed(reason: "a chunk size line without a size") }
        return size
    }
}
