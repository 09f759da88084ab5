import OspreyMacroKit
import Testing

@Suite("Lexer: tokens and their places")
struct LexerTests {
    private func texts(_ source: String) -> [String] {
        Lexer.tokenize(source).tokens.dropLast().map(\.text)
    }

    @Test("every token keeps its exact text and byte range, multi-byte characters included")
    func ranges() {
        let source = "@GET(\"/é\") func f(_ x: Int) -> Int // done"
        let (tokens, diagnostics) = Lexer.tokenize(source)
        #expect(diagnostics.isEmpty)
        let bytes = Array(source.utf8)
        for token in tokens where token.kind != .end {
            #expect(String(decoding: bytes[token.range], as: UTF8.self) == token.text)
        }
        #expect(
            texts(source) == [
                "@", "GET", "(", "\"/é\"", ")", "func", "f", "(", "_", "x", ":", "Int", ")", "->", "Int",
            ])
    }

    @Test(
        "string literals of every form are one token",
        arguments: [
            #""a \"quoted\" )""#,
            #""interpolated \(value(")")) done""#,
            ##"#"raw "with" ) and \(not)"#"##,
            ###"##"raw "# still"##"###,
            "\"\"\"\nmulti \"line\" )\n\"\"\"",
        ])
    func strings(literal: String) {
        let (tokens, diagnostics) = Lexer.tokenize("(\(literal))")
        #expect(diagnostics.isEmpty)
        #expect(tokens.map(\.kind) == [.punctuation, .string, .punctuation, .end])
        #expect(tokens[1].text == literal)
    }

    @Test("comments, nested block comments and doc comments are skipped")
    func comments() {
        #expect(texts("a /* b /* c */ d */ e // f\n/// g\ng") == ["a", "e", "g"])
    }

    @Test("backticked names keep their text and give their name")
    func backticks() {
        let token = Lexer.tokenize("`default`").tokens[0]
        #expect(token.kind == .identifier)
        #expect(token.text == "`default`")
        #expect(token.name == "default")
        #expect(!token.is("default"))
    }

    @Test("arrows, ellipses, pound directives and operators")
    func punctuation() {
        #expect(
            texts("-> ... #if os(Linux) a ?? b") == [
                "->", "...", "#if", "os", "(", "Linux", ")", "a", "?", "?", "b",
            ])
        #expect(Lexer.tokenize("#endif").tokens[0].kind == .pound)
    }

    @Test("spacing and line starts are recorded, for attribute arguments and statement ends")
    func spacing() {
        let tokens = Lexer.tokenize("@escaping (Int)\n@GET(\"/\")").tokens
        #expect(tokens[2].hasLeadingSpace)  // `(` after `@escaping `
        #expect(tokens[5].startsLine)  // the second `@`
        #expect(!tokens[7].hasLeadingSpace)  // `(` right after `GET`
    }

    @Test(
        "malformed input is a diagnostic, never a crash or a hang",
        arguments: ["\"unterminated", "/* open", "`open", "a \\ b", "#\"raw", "\"\\(", "\u{0}"])
    func malformed(source: String) {
        let (tokens, diagnostics) = Lexer.tokenize(source)
        #expect(tokens.last?.kind == .end)
        #expect(!diagnostics.isEmpty)
    }
}
