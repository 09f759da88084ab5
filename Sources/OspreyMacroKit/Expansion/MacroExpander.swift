/// The entry point of the macro plugin: one attached-macro request in, generated source and
/// diagnostics out.
public enum MacroExpander {
    /// What the compiler asks to expand.
    public struct Request: Sendable {
        /// The implementing type named in the macro's `#externalMacro`: `APIMacro`, `MockMacro`
        /// or `AnnotationMacro`.
        public var macro: String
        /// The macro role, such as `peer`.
        public var role: String
        /// The attribute's source text.
        public var attribute: String
        /// The declaration's source text, attributes included; diagnostics are placed in it.
        public var declaration: String

        /// A request.
        public init(macro: String, role: String, attribute: String, declaration: String) {
            self.macro = macro
            self.role = role
            self.attribute = attribute
            self.declaration = declaration
        }
    }

    /// The answer: generated source (nil when expansion failed) and diagnostics, whose ranges
    /// are UTF-8 offsets in the request's declaration.
    public struct Expansion: Sendable {
        /// The generated declarations, or nil.
        public var source: String?
        /// Errors, warnings and notes.
        public var diagnostics: [MacroDiagnostic]
    }

    /// Expands one macro.
    public static func expand(_ request: Request) -> Expansion {
        switch request.macro {
        case "AnnotationMacro":
            // `@GET`, `@Headers`, ...: markers that `@API` reads; they generate nothing.
            return Expansion(source: "", diagnostics: [])
        case "APIMacro", "MockMacro":
            let (declaration, parseDiagnostics) = DeclarationParser.parseProtocol(request.declaration)
            guard let declaration else { return Expansion(source: nil, diagnostics: parseDiagnostics) }
            if request.macro == "MockMacro" {
                let (mock, diagnostics) = MockGenerator.generate(for: declaration)
                let all = parseDiagnostics + diagnostics
                // With @API on the same protocol, its expansion reports the same mistakes: once is enough.
                if declaration.attributes.contains(where: { $0.name == "API" }) {
                    return Expansion(source: all.containsError ? "" : mock, diagnostics: [])
                }
                return Expansion(source: all.containsError ? nil : mock, diagnostics: all)
            }
            let (api, diagnostics) = APIGenerator.generate(for: declaration)
            let all = parseDiagnostics + diagnostics
            return Expansion(source: all.containsError ? nil : api, diagnostics: all)
        default:
            return Expansion(
                source: nil,
                diagnostics: [MacroDiagnostic("Osprey has no macro named \(request.macro)", at: 0..<0)])
        }
    }
}

extension [MacroDiagnostic] {
    /// Whether any of them is an error.
    var containsError: Bool { contains { $0.severity == .error } }
}
