import OspreyMacroKit
import Testing

@Suite("InheritanceAnalyzer: protocols a declaration refines")
struct InheritanceAnalyzerTests {
    /// The diagnostics of `@<macro> <header> { one requirement }`, and the source.
    private func check(_ header: String, macro: String = "API") -> ([MacroDiagnostic], [UInt8]) {
        let source = "@\(macro)\n\(header) {\n    @GET(\"/u\") func f() async throws\n}"
        let (declaration, parseDiagnostics) = DeclarationParser.parseProtocol(source)
        #expect(parseDiagnostics.isEmpty, "\(parseDiagnostics)")
        guard let declaration else { return ([], []) }
        return (InheritanceAnalyzer.check(declaration, macro: macro), Array(source.utf8))
    }

    @Test(
        "refining a protocol with requirements of its own is an error at its name, saying what to do",
        arguments: [
            ("protocol Users: BaseUsers", "API", ["BaseUsers"]),
            ("public protocol Users: Sendable, BaseUsers where Self: AnyObject", "API", ["BaseUsers"]),
            ("protocol Users<T>: Sendable & Module.BaseUsers, Other", "API", ["Module.BaseUsers", "Other"]),
            ("protocol Users: @preconcurrency BaseUsers", "Mock", ["BaseUsers"]),
        ])
    func refinements(header: String, macro: String, places: [String]) {
        let (diagnostics, source) = check(header, macro: macro)
        #expect(diagnostics.map { String(decoding: source[$0.range], as: UTF8.self) } == places)
        for (diagnostic, base) in zip(diagnostics, places) {
            #expect(diagnostic.severity == .error)
            #expect(
                diagnostic.message
                    == "@\(macro) cannot implement what 'Users' inherits from '\(base)': it sees only the "
                    + "requirements written in 'Users'; declare them there instead, or give '\(base)' its own "
                    + "@\(macro) and use \(base)\(macro) for them")
        }
    }

    @Test(
        "marker protocols and suppressions ask nothing of the generated class",
        arguments: [
            "protocol Users", "protocol Users: Sendable", "protocol Users: Swift.Sendable, AnyObject",
            "protocol Users: ~Copyable, Sendable", "protocol Users: class",
            "protocol Users: Sendable & AnyObject",
        ])
    func markers(header: String) {
        #expect(check(header).0.isEmpty)
    }

    @Test("the error stops the expansion of both macros")
    func expansion() {
        for (macro, attribute) in [("APIMacro", "@API"), ("MockMacro", "@Mock")] {
            let expansion = MacroExpander.expand(
                .init(
                    macro: macro, role: "peer", attribute: attribute,
                    declaration:
                        "\(attribute) protocol Users: BaseUsers { @GET(\"/u\") func f() async throws }"))
            #expect(expansion.source == nil)
            #expect(expansion.diagnostics.count == 1)
        }
    }
}
