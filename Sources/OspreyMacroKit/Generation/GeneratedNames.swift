/// How generated code names things: Osprey's types by their module, so that a user type with the
/// same name (a `Response`, a `Provider`) cannot capture them, and parameters in backticks, so
/// that names like `for` or `default` work.
enum GeneratedNames {
    /// Osprey's `name`, qualified.
    static func osprey(_ name: String) -> String { "Osprey." + name }

    /// A parameter's name as an expression.
    static func reference(_ parameter: Parameter) -> String {
        parameter.name.hasPrefix("`") ? parameter.name : "`\(parameter.name)`"
    }

    /// The annotations `@API` reads; every other attribute is copied onto the generated member.
    static let annotations: Set<String> = [
        "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "CONNECT", "HTTP", "Headers",
        "Authorization", "JSON", "URLForm", "Multipart", "KeyMapping",
    ]

    /// What goes before `func` in a generated member: the requirement's other attributes (such as
    /// `@available`, `@MainActor`), `nonisolated`, and the access level.
    static func prefix(of function: FunctionRequirement, access: String) -> String {
        let attributes = function.attributes.filter { !annotations.contains($0.name) }.map(\.text)
        let modifiers = function.modifiers.filter { $0 == "nonisolated" }
        return (attributes + modifiers).map { $0 + " " }.joined() + access
    }

    /// `getUser(id:)`: how errors and generated comments name a requirement.
    static func requirement(_ function: FunctionRequirement) -> String {
        function.baseName + "("
            + function.parameters.map { ($0.label == "_" ? "_" : $0.label) + ":" }.joined() + ")"
    }
}
