/// Percent-encoding per RFC 3986 §2.1: every byte of the UTF-8 form outside the *unreserved* set
/// (`A–Z a–z 0–9 - . _ ~`) becomes `%XX`. Used for path segments, query and form keys and values,
/// so that `+ & = # % ; / ? space` and non-ASCII text always survive the trip as data.
enum PercentEncoding {
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Encodes every byte outside the unreserved set.
    static func encode(_ text: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Encodes a value as exactly one path segment: `/` is encoded, and so are the dots of `.`
    /// and `..`, which would otherwise be resolved as "this" and "parent" directory.
    static func encodePathSegment(_ text: some StringProtocol) -> String {
        if text == "." { return "%2E" }
        if text == ".." { return "%2E%2E" }
        return encode(text)
    }
}
