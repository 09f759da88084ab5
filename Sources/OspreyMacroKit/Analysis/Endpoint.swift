/// A function requirement understood as an HTTP call: what `@API` generates code from.
public struct Endpoint: Equatable, Sendable {
    /// The requirement.
    public var function: FunctionRequirement
    /// The method, such as `GET`.
    public var method: String
    /// The path literal as written, quotes included (the runtime fills its placeholders).
    public var pathLiteral: String
    /// The parameters with the role each plays in the request.
    public var parameters: [(Parameter, ParameterRole)]
    /// What the protocol's attributes set (headers, authorization, encodings, key mapping).
    public var protocolSettings: [Setting]
    /// What the function's own attributes set; they apply after the protocol's.
    public var functionSettings: [Setting]
    /// How the result is delivered.
    public var result: ResultStyle

    /// Whether two endpoints are the same in every part.
    public static func == (lhs: Endpoint, rhs: Endpoint) -> Bool {
        lhs.function == rhs.function && lhs.method == rhs.method && lhs.pathLiteral == rhs.pathLiteral
            && lhs.parameters.map(\.0) == rhs.parameters.map(\.0)
            && lhs.parameters.map(\.1) == rhs.parameters.map(\.1)
            && lhs.protocolSettings == rhs.protocolSettings
            && lhs.functionSettings == rhs.functionSettings && lhs.result == rhs.result
    }
}

/// What a parameter is in the request.
public enum ParameterRole: Equatable, Sendable {
    /// Fills `:key` or `{key}` in the path.
    case path(key: String)
    /// A query item.
    case query(key: String)
    /// A header, named in Capital-Kebab-Case.
    case header(name: String)
    /// A field of the body (JSON, form or multipart).
    case field(key: String)
    /// A multipart part (its name is the key unless the part has one).
    case part(key: String)
    /// The whole body.
    case body
    /// The completion handler of a callback-style requirement.
    case callback
}

/// How a requirement returns its result.
public enum ResultStyle: Equatable, Sendable {
    /// `async throws -> T` (nil for no result).
    case async(TypeSyntax?)
    /// `-> Promise<T>`.
    case promise(TypeSyntax)
    /// A completion handler as the last parameter: `(Result<T, Error>) -> Void`, or
    /// `(Response) -> Void` when `value` is nil.
    case callback(parameter: String, value: TypeSyntax?, isResponse: Bool)
    /// `-> ResponseStream`, `-> ServerSentEvents` or `-> DecodedEvents<T>`, with any effects:
    /// the method returns the stream at once, and the request is sent when it is read.
    case stream(StreamKind)

    /// The value the requirement delivers (`T`), or nil for none, a `Response` handler or a
    /// stream (whose own type says what it reads).
    var value: TypeSyntax? {
        switch self {
        case .async(let type): type
        case .promise(let type): type
        case .callback(_, let type, _): type
        case .stream: nil
        }
    }
}

/// The streams a requirement can return, each made by one method of `AbstractAPI`.
public enum StreamKind: Equatable, Sendable {
    /// `ResponseStream`: the body as it arrives, from `stream(_:)`.
    case response
    /// `ServerSentEvents`: a reconnecting event source, from `events(_:)`.
    case events
    /// `DecodedEvents<T>`: each event's data decoded as `T`, from `decodedEvents(_:)`.
    case decodedEvents(TypeSyntax)
}

/// One attribute's effect on the request being built.
public enum Setting: Equatable, Sendable {
    /// `@Headers([...])`: the dictionary expression.
    case headers(String)
    /// `@Authorization(...)`: the header expression.
    case authorization(String)
    /// `@JSON`: optional encoder and decoder expressions.
    case json(encoder: String?, decoder: String?)
    /// `@URLForm`: an optional encoding expression.
    case urlForm(encoder: String?)
    /// `@Multipart`: an optional boundary expression.
    case multipart(boundary: String?)
    /// `@KeyMapping(...)`: the mapping expression.
    case keyMapping(String)
}
