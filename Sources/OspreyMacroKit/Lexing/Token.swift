/// One token of Swift source, with where it is: the unit every later stage works with, so that a
/// diagnostic can point at the exact bytes it is about.
public struct Token: Equatable, Sendable {
    /// What kind of token this is.
    public enum Kind: Equatable, Sendable {
        /// A name or keyword; backticked names too (``Token/name`` drops the backticks).
        case identifier
        /// A string literal, delimiters included; raw and multi-line strings too.
        case string
        /// An integer or floating-point literal.
        case number
        /// One of `( ) [ ] { } < > , : ; . = ? ! & @` or `->`, `...`.
        case punctuation
        /// Any other run of operator characters.
        case `operator`
        /// `#` followed by a name: `#if`, `#endif`, `#externalMacro`.
        case pound
        /// Something that cannot start a token (reported by the lexer).
        case unknown
        /// The end of the source.
        case end
    }

    /// The kind.
    public var kind: Kind
    /// The exact source text.
    public var text: String
    /// Where the token starts and ends, as UTF-8 offsets in the source.
    public var range: Range<Int>
    /// Whether whitespace or a comment comes right before the token.
    public var hasLeadingSpace: Bool
    /// Whether a line break comes before the token (after the previous one).
    public var startsLine: Bool

    /// The name an identifier stands for: its text without backticks.
    public var name: String {
        guard kind == .identifier, text.hasPrefix("`"), text.hasSuffix("`"), text.count >= 2 else {
            return text
        }
        return String(text.dropFirst().dropLast())
    }

    /// Whether this is the punctuation or identifier `text` (backticked names never match, so
    /// `` `func` `` is a name, not the keyword).
    public func `is`(_ text: String) -> Bool {
        self.text == text
            && (kind == .punctuation || kind == .identifier || kind == .operator || kind == .pound)
    }
}
