/// Turns a function requirement into an ``Endpoint``, checking everything the compiler cannot:
/// one HTTP method, a literal path whose placeholders all have arguments, one role per
/// parameter, a body that fits the method and the encoding, a supported result style and a
/// result type that can be decoded.
public enum EndpointAnalyzer {
    /// The method attributes and their methods (`@HTTP` names its own).
    public static let methods: [String: String] = [
        "GET": "GET", "POST": "POST", "PUT": "PUT", "PATCH": "PATCH", "DELETE": "DELETE",
        "OPTIONS": "OPTIONS",
        "HEAD": "HEAD", "TRACE": "TRACE", "CONNECT": "CONNECT", "HTTP": "",
    ]

    /// Methods whose other parameters are query items rather than body fields.
    static let queryMethods: Set<String> = ["GET", "HEAD", "DELETE"]
    /// Methods that cannot carry a body in Osprey.
    static let bodylessMethods: Set<String> = ["GET", "HEAD"]

    /// Analyses `function`, with the protocol's attributes applying first.
    /// - Returns: The endpoint, or nil when an error makes generating it pointless; diagnostics.
    public static func analyze(_ function: FunctionRequirement, protocolAttributes: [Attribute])
        -> (Endpoint?, [MacroDiagnostic])
    {
        var diagnostics: [MacroDiagnostic] = []
        for modifier in function.modifiers where ["static", "class", "mutating"].contains(modifier) {
            diagnostics.append(
                MacroDiagnostic(
                    "'\(modifier)' requirements are not supported by @API", at: function.funcKeywordRange))
        }

        let methodAttributes = function.attributes.filter { methods[$0.name] != nil }
        guard let methodAttribute = methodAttributes.first else {
            diagnostics.append(
                MacroDiagnostic(
                    "'\(function.baseName)' needs an HTTP method attribute, such as @GET(\"/path\")",
                    at: function.funcKeywordRange,
                    fixIts: [
                        .init(
                            "add @GET",
                            changes: [
                                .init(
                                    range: function.funcKeywordRange
                                        .lowerBound..<function.funcKeywordRange.lowerBound,
                                    newText: "@GET(\"/\(function.baseName)\") ")
                            ])
                    ]))
            return (nil, diagnostics)
        }
        for extra in methodAttributes.dropFirst() {
            diagnostics.append(
                MacroDiagnostic(
                    "'\(function.baseName)' has more than one HTTP method attribute", at: extra.range,
                    fixIts: [
                        .init("remove @\(extra.name)", changes: [.init(range: extra.range, newText: "")])
                    ],
                    notes: [.init("the first one is here", at: methodAttribute.range)]))
        }

        guard let (method, pathToken) = readMethod(methodAttribute, into: &diagnostics) else {
            return (nil, diagnostics)
        }
        let template = PathTemplate(literal: pathToken)
        let protocolSettings = protocolAttributes.compactMap(setting(for:))
        let functionSettings = function.attributes.compactMap(setting(for:))
        let settings = protocolSettings + functionSettings
        let isMultipart =
            settings.last { $0.isBodyEncoding }.map { if case .multipart = $0 { true } else { false } }
            ?? false

        let (result, callbackIndex) = ResultAnalyzer.analyze(function, into: &diagnostics)
        if let result {
            checkResultType(result, of: function, into: &diagnostics)
            checkWebSocket(
                result, method: method, methodAttribute: methodAttribute, of: function, into: &diagnostics)
        }
        var roles: [(Parameter, ParameterRole)] = []
        for (index, parameter) in function.parameters.enumerated() {
            if index == callbackIndex {
                roles.append((parameter, .callback))
                continue
            }
            guard
                let role = role(
                    of: parameter, method: method, template: template, isMultipart: isMultipart,
                    into: &diagnostics)
            else { continue }
            roles.append((parameter, role))
        }
        checkPath(template, roles: roles, function: function, into: &diagnostics)
        checkBody(roles, method: method, isMultipart: isMultipart, into: &diagnostics)

        guard let result, !diagnostics.containsError else { return (nil, diagnostics) }
        return (
            Endpoint(
                function: function, method: method, pathLiteral: pathToken.text, parameters: roles,
                protocolSettings: protocolSettings, functionSettings: functionSettings, result: result),
            diagnostics
        )
    }

    /// The method and the path token of `@GET("/path")` or `@HTTP("/path", method: "PURGE")`.
    private static func readMethod(_ attribute: Attribute, into diagnostics: inout [MacroDiagnostic])
        -> (String, Token)?
    {
        guard let pathArgument = attribute.argument(nil) else {
            diagnostics.append(
                MacroDiagnostic("@\(attribute.name) needs a path, such as \"/users\"", at: attribute.range))
            return nil
        }
        guard let pathToken = stringLiteral(pathArgument) else {
            diagnostics.append(
                MacroDiagnostic(
                    "the path must be a single-line string literal without interpolation",
                    at: pathArgument.range))
            return nil
        }
        guard attribute.name == "HTTP" else { return (methods[attribute.name]!, pathToken) }
        guard let methodArgument = attribute.argument("method"),
            let methodToken = stringLiteral(methodArgument)
        else {
            diagnostics.append(
                MacroDiagnostic(
                    "@HTTP needs its method as a string literal: method: \"PURGE\"", at: attribute.range))
            return nil
        }
        let method = String(methodToken.text.dropFirst().dropLast())
        guard !method.isEmpty, method.utf8.allSatisfy(\.isTokenCharacter) else {
            diagnostics.append(
                MacroDiagnostic("\(methodToken.text) is not a valid HTTP method", at: methodToken.range))
            return nil
        }
        return (method, pathToken)
    }

    /// The one plain string token an argument consists of, or nil.
    static func stringLiteral(_ argument: Attribute.Argument) -> Token? {
        guard argument.tokens.count == 1, let token = argument.tokens.first, token.kind == .string,
            !token.text.contains("\"\"\""), !token.text.contains("\\("), !token.text.contains("\\#(")
        else { return nil }
        return token
    }

    static func setting(for attribute: Attribute) -> Setting? {
        let first = attribute.arguments?.first?.expression
        switch attribute.name {
        case "Headers": return first.map(Setting.headers)
        case "Authorization": return first.map(Setting.authorization)
        case "JSON":
            return .json(
                encoder: attribute.argument("encoder")?.expression,
                decoder: attribute.argument("decoder")?.expression)
        case "URLForm": return .urlForm(encoder: attribute.argument("encoder")?.expression)
        case "Multipart": return .multipart(boundary: attribute.argument("boundary")?.expression)
        case "KeyMapping": return first.map(Setting.keyMapping)
        default: return nil
        }
    }
}

extension Setting {
    /// Whether this chooses the body's encoding.
    var isBodyEncoding: Bool {
        switch self {
        case .json, .urlForm, .multipart: true
        default: false
        }
    }
}

extension UInt8 {
    /// An RFC 9110 `tchar`.
    var isTokenCharacter: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
            || "!#$%&'*+-.^_`|~".utf8.contains(self)
    }
}
