/// The placeholders of a path literal: `:name` at the start of a segment, or `{name}` anywhere,
/// before any `?` (a static query is left alone).
public struct PathTemplate: Equatable, Sendable {
    /// One placeholder.
    public struct Placeholder: Equatable, Sendable {
        /// The parameter name it stands for.
        public var name: String
        /// Where it is in the declaration's source, delimiters included.
        public var range: Range<Int>
    }

    /// The placeholders, in order.
    public var placeholders: [Placeholder]

    /// Reads the placeholders of a path string token. Positions come from the literal as
    /// written, so they are exact even when the path contains escapes elsewhere.
    public init(literal token: Token) {
        let bytes = Array(token.text.utf8)
        var hashes = 0
        while hashes < bytes.count, bytes[hashes] == UInt8(ascii: "#") { hashes += 1 }
        let contentStart = hashes + 1
        let contentEnd = max(contentStart, bytes.count - 1 - hashes)
        var placeholders: [Placeholder] = []
        var index = contentStart
        func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "_")
                || (!first && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        while index < contentEnd, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            let byte = bytes[index]
            let atSegmentStart = index > contentStart && bytes[index - 1] == UInt8(ascii: "/")
            if byte == UInt8(ascii: ":"), atSegmentStart, index + 1 < contentEnd,
                isNameByte(bytes[index + 1], first: true)
            {
                var end = index + 1
                while end < contentEnd, isNameByte(bytes[end], first: false) { end += 1 }
                placeholders.append(
                    Placeholder(
                        name: String(decoding: bytes[(index + 1)..<end], as: UTF8.self),
                        range: (token.range.lowerBound + index)..<(token.range.lowerBound + end)))
                index = end
            } else if byte == UInt8(ascii: "{"), index + 1 < contentEnd,
                isNameByte(bytes[index + 1], first: true)
            {
                var end = index + 1
                while end < contentEnd, isNameByte(bytes[end], first: false) { end += 1 }
                if end < contentEnd, bytes[end] == UInt8(ascii: "}") {
                    placeholders.append(
                        Placeholder(
                            name: String(decoding: bytes[(index + 1)..<end], as: UTF8.self),
                            range: (token.range.lowerBound + index)..<(token.range.lowerBound + end + 1)))
                }
                index = end
            } else {
                index += 1
            }
        }
        self.placeholders = placeholders
    }

    /// The distinct names, in order.
    public var names: [String] {
        var seen: Set<String> = []
        return placeholders.map(\.name).filter { seen.insert($0).inserted }
    }
}
