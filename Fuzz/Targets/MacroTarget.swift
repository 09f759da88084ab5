import Foundation
import OspreyMacroKit

/// Any source text, through the macro kit as the compiler's requests would bring it: the lexer,
/// the protocol parser, and both macros' whole expansion.
enum MacroTarget {
    static func run(_ input: Data) {
        let source = String(decoding: input, as: UTF8.self)
        _ = Lexer.tokenize(source)
        _ = DeclarationParser.parseProtocol(source)
        for (macro, attribute) in [("APIMacro", "@API"), ("MockMacro", "@Mock")] {
            let expansion = MacroExpander.expand(
                MacroExpander.Request(macro: macro, role: "peer", attribute: attribute, declaration: source))
            precondition(
                expansion.source != nil || !expansion.diagnostics.isEmpty, "no expansion and no reason")
        }
    }
}
