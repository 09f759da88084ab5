import OspreyMacroKit
import Testing

@Suite("Lexer: tokens and their places")
struct LexerTests {
    @Test("every token keeps its exact text and byte range")
    func ranges() {
        let source = "@GET(\"/a\") func f() -> Int"
        let (tokens, diagnostics) = Lexer.tokenize(source)
        #expect(diagnostics.isEmpty)
        let bytes = Array(source.utf8)
        for token in tokens where token.kind != .end {
            #expect(String(decoding: bytes[token.range], as: UTF8.self) == token.text)
        }
        #expect(
            tokens.map(\.text) == ["@", "GET", "(", "\"/a\"", ")", "func", "f", "(", ")", "->", "Int", ""])
    }
}
