/// Writes `<Protocol>API`: a final `AbstractAPI` subclass whose methods build each request from
/// the attributes and arguments and send it through the API's pipeline (or, for a stream, return
/// the stream that sends it when read).
public enum APIGenerator {
    /// The class for `declaration`, or diagnostics that explain why it cannot be made.
    public static func generate(for declaration: ProtocolDeclaration) -> (String, [MacroDiagnostic]) {
        var diagnostics = InheritanceAnalyzer.check(declaration, macro: "API")
        var endpoints: [String: Endpoint] = [:]
        for function in declaration.functions {
            let (endpoint, found) = EndpointAnalyzer.analyze(
                function, protocolAttributes: declaration.attributes)
            diagnostics += found
            if let endpoint { endpoints[key(function)] = endpoint }
        }
        let access = AccessLevels(declaration.accessLevel)
        let protocolSettings = declaration.attributes.compactMap(EndpointAnalyzer.setting(for:))
        var writer = SourceWriter()
        writer.line(
            "/// The `\(declaration.name)` client that `@API` generates: each method sends its request")
        writer.line("/// through Osprey's pipeline (adapters, retries, monitors, redirects, timeouts).")
        writer.block(
            "\(access.type)final class \(declaration.name)API: Osprey.AbstractAPI, \(declaration.name), @unchecked Sendable {"
        ) { body in
            body.line("// @unchecked: `provider` is immutable; AbstractAPI guards its own state.")
            body.line("")
            body.line("/// The base URL, configuration, transport, request modifiers and interceptors.")
            body.line("\(access.member)let provider: Osprey.Provider")
            body.line("")
            writeInitialisers(&body, access: access.member, defaultParser: defaultParser(protocolSettings))
            body.members(declaration.members) { writer, function in
                guard let endpoint = endpoints[key(function)] else { return }
                writer.line("")
                writeMethod(&writer, endpoint, access: access.member)
            }
            let deliveries = Set(endpoints.values.compactMap(decodedDelivery(of:)))
            for delivery in DecodedDelivery.allCases where deliveries.contains(delivery) {
                writeDecodingHelpers(&body, for: delivery)
            }
        }
        return (writer.text, diagnostics)
    }

    private static func key(_ function: FunctionRequirement) -> String {
        "\(function.range.lowerBound)"
    }

    /// The parser used when the caller gives none: the protocol's `@JSON(decoder:)`, else its
    /// `@KeyMapping`, else `JSONParser()`.
    private static func defaultParser(_ settings: [Setting]) -> String {
        for setting in settings.reversed() {
            if case .json(_, let decoder?) = setting { return "Osprey.JSONParser(decoder: \(decoder))" }
        }
        for setting in settings.reversed() {
            if case .keyMapping(let mapping) = setting { return "Osprey.JSONParser(keyMapping: \(mapping))" }
        }
        return "Osprey.JSONParser()"
    }

    private static func writeInitialisers(_ writer: inout SourceWriter, access: String, defaultParser: String)
    {
        writer.line("/// Creates a client for the provider's base URL.")
        writer.line("///")
        writer.line("/// - Parameters:")
        writer.line("///   - provider: The base URL, configuration, transport, modifiers and interceptors.")
        writer.line(
            "///   - responseParser: Decodes bodies; a `JSONParser` set up by the protocol's attributes")
        writer.line("///     when nil.")
        writer.block(
            "\(access)init(provider: Osprey.Provider, responseParser: (any Osprey.ResponseParser)? = nil) {"
        ) {
            body in
            body.line("self.provider = provider")
            body.line("super.init(")
            body.line("    responseParser: responseParser ?? \(defaultParser),")
            body.line("    transport: provider.makeTransport(),")
            body.line("    configuration: provider.configuration")
            body.line(")")
        }
        writer.line("")
        writer.line("/// Creates a client in the Osprey style.")
        writer.line("///")
        writer.line("/// - Parameters:")
        writer.line("///   - baseURL: The URL every path is joined to.")
        writer.line("///   - responseParser: Decodes bodies; a `JSONParser` when nil.")
        writer.line("///   - transport: Sends requests; when nil, the platform's default (`CurlTransport` on")
        writer.line("///     Linux, `URLSessionTransport` elsewhere).")
        writer.line("///   - configuration: Default headers, timeouts, limits, adapters, retries, monitors.")
        writer.line("\(access)convenience init(")
        writer.line("    baseURL: String,")
        writer.line("    responseParser: (any Osprey.ResponseParser)? = nil,")
        writer.line("    transport: (any Osprey.HTTPTransport)? = nil,")
        writer.line("    configuration: Osprey.APIConfiguration = Osprey.APIConfiguration()")
        writer.block(") {") { body in
            body.line("self.init(")
            body.line(
                "    provider: Osprey.Provider(baseURL: baseURL, transport: transport, configuration: configuration),"
            )
            body.line("    responseParser: responseParser")
            body.line(")")
        }
    }

    private static func writeMethod(_ writer: inout SourceWriter, _ endpoint: Endpoint, access: String) {
        writer.block(
            "\(GeneratedNames.prefix(of: endpoint.function, access: access))\(endpoint.function.signature) {"
        ) { body in
            let statements = settingStatements(endpoint) + argumentStatements(endpoint)
            body.line(
                "\(statements.isEmpty ? "let" : "var") __request = self.provider.makeRequest("
                    + "method: \(SourceWriter.literal(endpoint.method)), path: \(endpoint.pathLiteral))")
            for statement in statements { body.line("__request." + statement) }
            if let delivery = decodedDelivery(of: endpoint) {
                for statement in decodedResultStatements(endpoint, delivery: delivery) {
                    body.line(statement)
                }
                return
            }
            switch endpoint.result {
            case .async(let type):
                body.line("let __promise: \(promiseType(type)) = self._request(__request)")
                body.line(type == nil ? "try await __promise.value" : "return try await __promise.value")
            case .promise(let value):
                body.line("let __promise: \(promiseType(value)) = self._request(__request)")
                // A labelled tuple is the same value with names: converted on the way out.
                body.line(value.hasLabelledElements ? "return __promise.then { $0 }" : "return __promise")
            case .callback(let parameter, let value, let isResponse):
                let type = isResponse ? "Osprey.Promise<Osprey.Response>" : promiseType(value)
                body.line("let __promise: \(type) = self._request(__request)")
                body.line("__promise._deliver(to: \(parameter))")
            case .stream(let kind):
                // Made at once, whatever the effects: the request is sent when the stream is read.
                body.line("return self.\(kind.makingMethod)(__request)")
            }
        }
    }

    /// The promise the request is sent as: `Promise<T>`, with a tuple's labels dropped (the
    /// requests Osprey offers are for `(T, Response)`) and `sending` left out.
    static func promiseType(_ type: TypeSyntax?) -> String {
        guard let type = type?.withoutAttributes else { return "Osprey.Promise<Void>" }
        if case .tuple(let elements) = type.shape, elements.count > 1 {
            return "Osprey.Promise<(\(elements.map(\.type.text).joined(separator: ", ")))>"
        }
        return "Osprey.Promise<\(type.text)>"
    }

    /// What each argument adds to the request.
    private static func argumentStatements(_ endpoint: Endpoint) -> [String] {
        endpoint.parameters.compactMap { parameter, role in
            let name = GeneratedNames.reference(parameter)
            switch role {
            case .path(let key): return "addParameter(\(SourceWriter.literal(key)), value: \(name))"
            case .query(let key): return "addQuery(\(SourceWriter.literal(key)), value: \(name))"
            case .header(let header): return "addHeader(\(SourceWriter.literal(header)), value: \(name))"
            case .field(let key): return "addField(\(SourceWriter.literal(key)), value: \(name))"
            case .part(let key): return "addPart(\(SourceWriter.literal(key)), \(name))"
            case .body: return "setBody(\(name))"
            case .callback: return nil
            }
        }
    }

    /// The protocol's settings, then the function's; the function's key mapping and decoder
    /// also decode its responses (a decoder after a key mapping wins).
    private static func settingStatements(_ endpoint: Endpoint) -> [String] {
        let function = endpoint.functionSettings
        let mappingsFirst =
            function.filter { if case .keyMapping = $0 { true } else { false } }
            + function.filter { if case .keyMapping = $0 { false } else { true } }
        return endpoint.protocolSettings.flatMap { statements(for: $0, decodes: false) }
            + mappingsFirst.flatMap { statements(for: $0, decodes: true) }
    }

    private static func statements(for setting: Setting, decodes: Bool) -> [String] {
        switch setting {
        case .headers(let headers):
            return ["addHeaders(\(headers))"]
        case .authorization(let value):
            return ["addAuthorization(\(value))"]
        case .json(let encoder, let decoder):
            let encoding = "bodyEncoding = " + (encoder.map { ".json(encoder: \($0))" } ?? ".json")
            guard decodes, let decoder else { return [encoding] }
            return [encoding, "responseDecoder = \(decoder)"]
        case .urlForm(let encoder):
            return ["bodyEncoding = " + (encoder.map { ".urlForm(encoding: \($0))" } ?? ".urlForm")]
        case .multipart(let boundary):
            return ["bodyEncoding = " + (boundary.map { ".multipart(boundary: \($0))" } ?? ".multipart")]
        case .keyMapping(let mapping):
            guard decodes else { return ["keyMapping = \(mapping)"] }
            return [
                "keyMapping = \(mapping)",
                "responseDecoder = Osprey.JSONParser(keyMapping: \(mapping)).decoder",
            ]
        }
    }
}
