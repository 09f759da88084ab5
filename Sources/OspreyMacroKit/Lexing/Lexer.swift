/// Splits Swift source into tokens, skipping whitespace and comments.
///
/// It knows what declarations in a protocol can contain: names (backticked too), numbers,
/// string literals of every form (`"…"` with `\(…)` interpolations, `"""` blocks, raw strings
/// `#"…"#`), punctuation and operators, `#` directives, `//` and nested `/* */` comments.
/// Malformed input (an unterminated string or comment) becomes a diagnostic and the rest of the
/// source one token; the lexer never fails and always ends.
public struct Lexer {
    private let bytes: [UInt8]
    private var index = 0
    /// How many string literals the scanner is inside (interpolations nest them).
    private var stringDepth = 0
    /// Deeper nesting is refused: scanning strings recurses.
    private static let maximumStringDepth = 64
    private(set) var diagnostics: [MacroDiagnostic] = []

    /// Tokenizes `source`.
    /// - Returns: The tokens, ending with one of kind `.end`, and any diagnostics.
    public static func tokenize(_ source: String) -> (tokens: [Token], diagnostics: [MacroDiagnostic]) {
        var lexer = Lexer(bytes: Array(source.utf8))
        var tokens: [Token] = []
        while true {
            let token = lexer.next()
            tokens.append(token)
            if token.kind == .end { break }
        }
        return (tokens, lexer.diagnostics)
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func next() -> Token {
        let (hasSpace, startsLine) = skipTrivia()
        let start = index
        func token(_ kind: Token.Kind) -> Token {
            Token(
                kind: kind, text: String(decoding: bytes[start..<index], as: UTF8.self), range: start..<index,
                hasLeadingSpace: hasSpace, startsLine: startsLine)
        }
        guard let byte = peek() else { return token(.end) }

        if byte.isIdentifierHead {
            while let next = peek(), next.isIdentifierBody { index += 1 }
            return token(.identifier)
        }
        if byte == UInt8(ascii: "`") {
            index += 1
            while let next = peek(), next != UInt8(ascii: "`"), next != UInt8(ascii: "\n") { index += 1 }
            if peek() == UInt8(ascii: "`") {
                index += 1
            } else {
                report("unterminated backticked name", at: start..<index)
            }
            return token(.identifier)
        }
        if byte.isDigit {
            while let next = peek(),
                next.isIdentifierBody || (next == UInt8(ascii: ".") && peek(offset: 1)?.isDigit == true)
            {
                index += 1
            }
            return token(.number)
        }
        if byte == UInt8(ascii: "\"") || (byte == UInt8(ascii: "#") && startsRawString()) {
            scanString()
            return token(.string)
        }
        if byte == UInt8(ascii: "#") {
            index += 1
            while let next = peek(), next.isIdentifierBody { index += 1 }
            return token(.pound)
        }
        if byte == UInt8(ascii: "-"), peek(offset: 1) == UInt8(ascii: ">") {
            index += 2
            return token(.punctuation)
        }
        if byte == UInt8(ascii: "."), peek(offset: 1) == UInt8(ascii: "."),
            peek(offset: 2) == UInt8(ascii: ".")
        {
            index += 3
            return token(.punctuation)
        }
        if Self.punctuation.contains(byte) {
            index += 1
            return token(.punctuation)
        }
        if Self.operatorCharacters.contains(byte) {
            while let next = peek(), Self.operatorCharacters.contains(next) { index += 1 }
            return token(.operator)
        }
        // Any other byte (a stray backslash, a non-ASCII symbol): one token of one character.
        index += 1
        while let next = peek(), next & 0xC0 == 0x80 { index += 1 }
        report("unexpected character", at: start..<index)
        return token(.unknown)
    }

    /// Skips whitespace and comments; says whether there were any, and whether a line ended.
    private mutating func skipTrivia() -> (hasSpace: Bool, startsLine: Bool) {
        var hasSpace = index == 0
        var startsLine = index == 0
        while let byte = peek() {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                startsLine = true
                hasSpace = true
                index += 1
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == 0x0B || byte == 0x0C
            {
                hasSpace = true
                index += 1
            } else if byte == UInt8(ascii: "/"), peek(offset: 1) == UInt8(ascii: "/") {
                hasSpace = true
                while let next = peek(), next != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: "/"), peek(offset: 1) == UInt8(ascii: "*") {
                hasSpace = true
                skipBlockComment()
            } else {
                break
            }
        }
        return (hasSpace, startsLine)
    }

    private mutating func skipBlockComment() {
        let start = index
        var depth = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), peek(offset: 1) == UInt8(ascii: "*") {
                depth += 1
                index += 2
            } else if bytes[index] == UInt8(ascii: "*"), peek(offset: 1) == UInt8(ascii: "/") {
                depth -= 1
                index += 2
                if depth == 0 { return }
            } else {
                index += 1
            }
        }
        report("unterminated comment", at: start..<min(start + 2, bytes.count))
    }

    /// `#`s then `"`: the start of a raw string.
    private func startsRawString() -> Bool {
        var offset = 0
        while peek(offset: offset) == UInt8(ascii: "#") { offset += 1 }
        return peek(offset: offset) == UInt8(ascii: "\"")
    }

    /// Scans a string literal of any form, with interpolations and nested strings inside them.
    private mutating func scanString() {
        let start = index
        stringDepth += 1
        defer { stringDepth -= 1 }
        guard stringDepth <= Self.maximumStringDepth else {
            while let byte = peek(), byte != UInt8(ascii: "\n") { index += 1 }
            report("string interpolations nested too deeply", at: start..<index)
            return
        }
        var hashes = 0
        while peek() == UInt8(ascii: "#") {
            hashes += 1
            index += 1
        }
        let isMultiline =
            peek() == UInt8(ascii: "\"") && peek(offset: 1) == UInt8(ascii: "\"")
            && peek(offset: 2) == UInt8(ascii: "\"")
        index += isMultiline ? 3 : 1
        while let byte = peek() {
            if byte == UInt8(ascii: "\\"), hashesFollow(hashes, at: index + 1) {
                index += 1 + hashes
                if peek() == UInt8(ascii: "(") {
                    scanInterpolation()
                } else if peek() != nil {
                    index += 1
                }
            } else if byte == UInt8(ascii: "\""), closes(isMultiline: isMultiline, hashes: hashes) {
                index += (isMultiline ? 3 : 1) + hashes
                return
            } else if byte == UInt8(ascii: "\n"), !isMultiline {
                break
            } else {
                index += 1
            }
        }
        report("unterminated string literal", at: start..<index)
    }

    private func hashesFollow(_ count: Int, at position: Int) -> Bool {
        (0..<count).allSatisfy { position + $0 < bytes.count && bytes[position + $0] == UInt8(ascii: "#") }
    }

    private func closes(isMultiline: Bool, hashes: Int) -> Bool {
        let quotes = isMultiline ? 3 : 1
        guard (0..<quotes).allSatisfy({ peek(offset: $0) == UInt8(ascii: "\"") }) else { return false }
        return hashesFollow(hashes, at: index + quotes)
    }

    /// From `(` after a backslash to its matching `)`, strings inside included.
    private mutating func scanInterpolation() {
        var depth = 0
        while let byte = peek() {
            if byte == UInt8(ascii: "(") {
                depth += 1
                index += 1
            } else if byte == UInt8(ascii: ")") {
                depth -= 1
                index += 1
                if depth == 0 { return }
            } else if byte == UInt8(ascii: "\"") || (byte == UInt8(ascii: "#") && startsRawString()) {
                scanString()
            } else if byte == UInt8(ascii: "\n") {
                return
            } else {
                index += 1
            }
        }
    }

    private func peek(offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private mutating func report(_ message: String, at range: Range<Int>) {
        diagnostics.append(MacroDiagnostic(message, at: range))
    }

    private static let punctuation = Set("()[]{}<>,:;.=?!&@".utf8)
    private static let operatorCharacters = Set("/=-+*%<>!&|^~?.".utf8)
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    fileprivate var isIdentifierHead: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || self == UInt8(ascii: "_") || self == UInt8(ascii: "$") || self >= 0x80
    }

    fileprivate var isIdentifierBody: Bool { isIdentifierHead || isDigit }
}
