/// A position in a token list, with the source they came from: the parser's reading head.
///
/// Every method either consumes a token or leaves the position where it was, and the last token
/// is always `.end`, so loops that advance until `.end` always finish.
struct TokenCursor {
    let tokens: [Token]
    let source: [UInt8]
    private(set) var position = 0

    init(tokens: [Token], source: [UInt8]) {
        self.tokens = tokens
        self.source = source
    }

    /// The current token.
    var current: Token { tokens[position] }

    /// The token `offset` places ahead (the end token past the end).
    func peek(_ offset: Int = 1) -> Token {
        tokens[min(position + offset, tokens.count - 1)]
    }

    /// Whether the current token is the end.
    var isAtEnd: Bool { current.kind == .end }

    /// The token before the current one (the first token at the start).
    var previous: Token { tokens[max(position - 1, 0)] }

    /// Consumes and returns the current token (never moves past the end).
    @discardableResult
    mutating func advance() -> Token {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    /// Consumes the current token if it is `text`.
    mutating func consume(_ text: String) -> Token? {
        current.is(text) ? advance() : nil
    }

    /// The source text of `range`.
    func text(_ range: Range<Int>) -> String {
        String(decoding: source[range.clamped(to: 0..<source.count)], as: UTF8.self)
    }

    /// From the start of `first` to the end of the previous token (an empty range at `first`'s
    /// start when nothing was consumed).
    func range(from first: Token) -> Range<Int> {
        let end = position > 0 ? tokens[position - 1].range.upperBound : first.range.lowerBound
        return first.range.lowerBound..<max(end, first.range.lowerBound)
    }

    /// Skips a bracketed group starting at the current `(`, `[`, `{` or `<` (for `<`, only angle
    /// brackets count), up to and including its closing bracket or the end.
    mutating func skipGroup() {
        let pairs = ["(": ")", "[": "]", "{": "}"]
        if current.is("<") {
            var depth = 0
            repeat {
                if current.is("<") { depth += 1 }
                if current.is(">") { depth -= 1 }
                advance()
            } while depth > 0 && !isAtEnd
            return
        }
        guard current.kind == .punctuation, pairs[current.text] != nil else {
            advance()
            return
        }
        // A stack of the closers expected, innermost last: no recursion, whatever the nesting.
        var expected: [String] = []
        repeat {
            if current.kind == .punctuation, let close = pairs[current.text] {
                expected.append(close)
            } else if current.kind == .punctuation, current.text == expected.last {
                expected.removeLast()
            }
            advance()
        } while !expected.isEmpty && !isAtEnd
    }
}
