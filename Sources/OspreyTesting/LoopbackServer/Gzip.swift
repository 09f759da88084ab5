import Foundation

/// Gzip bodies (RFC 1952) written without zlib: plain data in stored deflate blocks, and
/// decompression bombs as one hand-built dynamic-Huffman block (RFC 1951).
///
/// Both are valid streams that any inflater decodes to the intended bytes, CRC and length
/// included, so a client that stops a bomb early was really stopped, not refused.
package enum Gzip {
    /// `data` as a gzip stream of stored (uncompressed) deflate blocks.
    package static func encode(_ data: Data) -> Data {
        var out = Data(header)
        let bytes = [UInt8](data)
        var start = 0
        repeat {
            let end = min(start + 65_535, bytes.count)
            let length = UInt16(end - start)
            // One byte holds BFINAL and BTYPE = 00; a stored block then starts on a byte boundary.
            out.append(end == bytes.count ? 1 : 0)
            out.append(contentsOf: littleEndian(length) + littleEndian(~length))
            out.append(contentsOf: bytes[start..<end])
            start = end
        } while start < bytes.count
        out.append(
            contentsOf: littleEndian(CRC32.checksum(bytes))
                + littleEndian(UInt32(truncatingIfNeeded: bytes.count)))
        return out
    }

    /// A gzip stream that inflates to `inflatedBytes` zero bytes from about `inflatedBytes / 1032`
    /// bytes: 1 GiB of output from about 1 MiB.
    package static func bomb(inflatedBytes: Int) -> Data {
        precondition(inflatedBytes > 0, "a bomb inflates to at least one byte")
        // Codes (canonical Huffman, RFC 1951 §3.2.2), written most significant bit first:
        //   literal/length: 285 (a match of 258) = 0, literal 0 = 10, end of block = 11
        //   distance: 0 (distance 1) = 0
        //   code-length alphabet: 18 (a run of zeros) = 0, 1 = 10, 2 = 11
        // So each 258-byte match costs two zero bits.
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(2, count: 2)  // BTYPE = dynamic Huffman
        bits.write(286 - 257, count: 5)  // HLIT: literal/length codes 0...285
        bits.write(0, count: 5)  // HDIST: one distance code
        bits.write(18 - 4, count: 4)  // HCLEN: code-length code lengths in the order below, up to 1
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
        let codeLengthLengths: [Int: UInt32] = [18: 1, 1: 2, 2: 2]
        for symbol in order { bits.write(codeLengthLengths[symbol] ?? 0, count: 3) }
        // Lengths of literal/length symbols 0...285, then of distance symbol 0.
        bits.writeCode(0b11, count: 2)  // symbol 0: length 2
        for run in [138, 117] {  // symbols 1...255: length 0
            bits.writeCode(0, count: 1)
            bits.write(UInt32(run - 11), count: 7)
        }
        bits.writeCode(0b11, count: 2)  // symbol 256: length 2
        bits.writeCode(0, count: 1)  // symbols 257...284: length 0
        bits.write(28 - 11, count: 7)
        bits.writeCode(0b10, count: 2)  // symbol 285: length 1
        bits.writeCode(0b10, count: 2)  // distance 0: length 1

        bits.writeCode(0b10, count: 2)  // the first zero byte, a literal
        let matches = (inflatedBytes - 1) / 258
        let literals = (inflatedBytes - 1) % 258
        bits.writeZeros(matches * 2)
        for _ in 0..<literals { bits.writeCode(0b10, count: 2) }
        bits.writeCode(0b11, count: 2)  // end of block

        var out = Data(header)
        out.append(contentsOf: bits.finished)
        out.append(
            contentsOf: littleEndian(CRC32.checksumOfZeros(count: inflatedBytes))
                + littleEndian(UInt32(truncatingIfNeeded: inflatedBytes)))
        return out
    }

    /// ID1 ID2, deflate, no flags, no time, no extra flags, unknown OS.
    private static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]

    private static func littleEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        (0..<(Value.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// Packs deflate's bit stream: values least significant bit first, Huffman codes most
/// significant bit first.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var pending: UInt32 = 0
    private var pendingCount = 0

    mutating func write(_ value: UInt32, count: Int) {
        for index in 0..<count { append(bit: (value >> index) & 1) }
    }

    mutating func writeCode(_ code: UInt32, count: Int) {
        for index in (0..<count).reversed() { append(bit: (code >> index) & 1) }
    }

    /// Many zero bits at once: the bulk of a bomb.
    mutating func writeZeros(_ count: Int) {
        var remaining = count
        while remaining > 0, pendingCount != 0 {
            append(bit: 0)
            remaining -= 1
        }
        bytes.append(contentsOf: repeatElement(0, count: remaining / 8))
        for _ in 0..<(remaining % 8) { append(bit: 0) }
    }

    /// The bytes, the last one padded with zero bits.
    var finished: [UInt8] {
        pendingCount == 0 ? bytes : bytes + [UInt8(pending)]
    }

    private mutating func append(bit: UInt32) {
        pending |= bit << pendingCount
        pendingCount += 1
        if pendingCount == 8 {
            bytes.append(UInt8(pending))
            pending = 0
            pendingCount = 0
        }
    }
}

/// CRC-32 as gzip uses it (ISO 3309, reflected polynomial 0xEDB88320).
enum CRC32 {
    private static let polynomial: UInt32 = 0xEDB8_8320

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ polynomial : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        return ~crc
    }

    /// The checksum of `count` zero bytes in O(log count): feeding zeros multiplies the register
    /// by x^8 per byte modulo the polynomial, so the register becomes 0xFFFFFFFF · x^(8·count).
    static func checksumOfZeros(count: Int) -> UInt32 {
        // Reflected representation: bit 31 is x^0.
        var power: UInt32 = 1 << 31
        var square: UInt32 = 1 << (31 - 8)
        var exponent = count
        while exponent > 0 {
            if exponent & 1 != 0 { power = multiply(power, square) }
            square = multiply(square, square)
            exponent >>= 1
        }
        return ~multiply(power, 0xFFFF_FFFF)
    }

    /// a · b modulo the polynomial, both reflected.
    private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var product: UInt32 = 0
        var b = b
        var mask: UInt32 = 1 << 31
        while mask != 0 {
            if a & mask != 0 { product ^= b }
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
            mask >>= 1
        }
        return product
    }
}
