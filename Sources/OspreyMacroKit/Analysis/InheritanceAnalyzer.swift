/// Checks the protocols a declaration refines. `@API` and `@Mock` see only the requirements
/// written inside the protocol they are attached to, so a generated class cannot implement
/// those of a protocol it refines: without this check, the compiler reports that the generated
/// class does not conform, inside the expansion.
public enum InheritanceAnalyzer {
    /// Protocols that ask nothing of a generated class (`@unchecked Sendable` covers `Sendable`).
    static let markers: Set<String> = ["Sendable", "SendableMetatype", "AnyObject", "Copyable", "Escapable"]

    /// An error at each refined protocol other than a marker.
    /// - Parameters:
    ///   - declaration: The protocol.
    ///   - macro: `API` or `Mock`: what the generated type is named after.
    /// - Returns: The diagnostics.
    public static func check(_ declaration: ProtocolDeclaration, macro: String) -> [MacroDiagnostic] {
        declaration.inheritedTypes.flatMap(parts(of:)).filter { !isMarker($0) }.map { base in
            let name = declaration.name
            return MacroDiagnostic(
                "@\(macro) cannot implement what '\(name)' inherits from '\(base.text)': it sees only the "
                    + "requirements written in '\(name)'; declare them there instead, or give '\(base.text)' its "
                    + "own @\(macro) and use \(base.text)\(macro) for them",
                at: base.range)
        }
    }

    /// `A & B` as its parts; any other type as itself.
    private static func parts(of type: TypeSyntax) -> [TypeSyntax] {
        if case .composition(let members) = type.withoutAttributes.shape {
            return members.flatMap(parts(of:))
        }
        return [type.withoutAttributes]
    }

    private static func isMarker(_ type: TypeSyntax) -> Bool {
        markers.contains { type.isNamed($0, modules: ["Swift"]) } || type.isNamed("class")
    }
}
