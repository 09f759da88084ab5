/// A protocol as `@API` and `@Mock` see it: its attributes, access level and function
/// requirements, each part with its place in the source.
public struct ProtocolDeclaration: Equatable, Sendable {
    /// The attributes written on the protocol, `@API` itself included.
    public var attributes: [Attribute]
    /// `public`, `package`, `internal`, `fileprivate` or `private`, if written.
    public var accessLevel: String?
    /// The protocol's name.
    public var name: String
    /// Where the name is.
    public var nameRange: Range<Int>
    /// The protocols it refines, as written after `:` (`Sendable`, `BaseUsers`).
    public var inheritedTypes: [TypeSyntax]
    /// The requirements, in order, with `#if` blocks kept as they are.
    public var members: [Member]

    /// Every function requirement, in order, whatever `#if` block it is in.
    public var functions: [FunctionRequirement] { members.flatMap(\.functions) }
}

/// A requirement, or an `#if` block of them.
public enum Member: Equatable, Sendable {
    /// A function requirement.
    case function(FunctionRequirement)
    /// `#if` / `#elseif` / `#else` clauses, each with its members.
    case conditional([ConditionalClause])

    /// The functions in it, in order.
    public var functions: [FunctionRequirement] {
        switch self {
        case .function(let function): [function]
        case .conditional(let clauses): clauses.flatMap { $0.members.flatMap(\.functions) }
        }
    }
}

/// One clause of an `#if` block: `#if os(Linux)`, `#elseif DEBUG`, `#else`.
public struct ConditionalClause: Equatable, Sendable {
    /// The directive and its condition as written (`#if os(Linux)`, `#else`).
    public var directive: String
    /// The members inside the clause.
    public var members: [Member]
}

/// An attribute such as `@GET("/users/:id")` or `@Headers(["A": "b"])`.
public struct Attribute: Equatable, Sendable {
    /// The name without `@` (for `@Osprey.GET`, `GET`).
    public var name: String
    /// The arguments, or nil when the attribute has no parentheses.
    public var arguments: [Argument]?
    /// From `@` to the closing parenthesis.
    public var range: Range<Int>
    /// The attribute as written.
    public var text: String
    /// Where the name is.
    public var nameRange: Range<Int>

    /// One argument: an optional label and the expression's exact text.
    public struct Argument: Equatable, Sendable {
        /// The label, if any.
        public var label: String?
        /// The expression as written.
        public var expression: String
        /// Where the expression is.
        public var range: Range<Int>
        /// The expression's tokens (without trivia), for literals that need reading.
        public var tokens: [Token]
    }

    /// The first argument with `label` (nil for the unlabelled one).
    public func argument(_ label: String?) -> Argument? {
        arguments?.first { $0.label == label }
    }
}

/// A function requirement: `func getUser(id: Int) async throws -> User`.
public struct FunctionRequirement: Equatable, Sendable {
    /// Its attributes, in order.
    public var attributes: [Attribute]
    /// Modifiers written before `func` (`mutating`, `static`, `nonisolated`, ...).
    public var modifiers: [String]
    /// The name, as written (backticks kept).
    public var name: String
    /// The name without backticks.
    public var baseName: String
    /// The generic parameter clause as written (`<T: Decodable>`), or nil.
    public var genericClause: String?
    /// The parameters.
    public var parameters: [Parameter]
    /// Whether it is `async`.
    public var isAsync: Bool
    /// `throws`, `rethrows` or `throws(E)` as written, or nil.
    public var throwsClause: String?
    /// The return type, or nil for none.
    public var returnType: TypeSyntax?
    /// The `where` clause as written, or nil.
    public var whereClause: String?
    /// The declaration's text from `func` to its end (attributes and modifiers left out).
    public var signature: String
    /// From the first attribute to the end.
    public var range: Range<Int>
    /// Where `func` is.
    public var funcKeywordRange: Range<Int>
    /// Where the parameter list is, parentheses included.
    public var parameterListRange: Range<Int>
}

/// One parameter: `id postId: Int`.
public struct Parameter: Equatable, Sendable {
    /// The argument label (`_` for none).
    public var label: String
    /// The name used inside the function, as written (backticks kept).
    public var name: String
    /// The type.
    public var type: TypeSyntax
    /// Where the whole parameter is.
    public var range: Range<Int>

    /// The name without backticks: the key a parameter stands for on the wire.
    public var key: String {
        name.hasPrefix("`") && name.hasSuffix("`") && name.count >= 2
            ? String(name.dropFirst().dropLast()) : name
    }
}
