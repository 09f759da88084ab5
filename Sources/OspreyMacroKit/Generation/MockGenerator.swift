/// Writes `<Protocol>Mock`: a conformance whose requirements answer with handlers a test sets
/// through `mock<Name> { arguments in … }`; a requirement without a handler fails with
/// `MockError.notMocked` (for a stream that cannot throw, see `StreamKind+Generation.swift`).
public enum MockGenerator {
    /// The mock for `declaration`, or diagnostics that explain why it cannot be made.
    public static func generate(for declaration: ProtocolDeclaration) -> (String, [MacroDiagnostic]) {
        var diagnostics = InheritanceAnalyzer.check(declaration, macro: "Mock")
        var styles: [Int: (ResultStyle, Int?)] = [:]
        for function in declaration.functions {
            var found: [MacroDiagnostic] = []
            for modifier in function.modifiers where ["static", "class", "mutating"].contains(modifier) {
                found.append(
                    MacroDiagnostic(
                        "'\(modifier)' requirements are not supported by @Mock", at: function.funcKeywordRange
                    ))
            }
            for parameter in function.parameters where parameter.name == "_" {
                found.append(
                    MacroDiagnostic("give this parameter a name: @Mock passes it on", at: parameter.range))
            }
            let (style, callbackIndex) = ResultAnalyzer.analyze(function, into: &found)
            diagnostics += found
            if let style, !found.containsError { styles[function.range.lowerBound] = (style, callbackIndex) }
        }
        let access = AccessLevels(declaration.accessLevel)
        var writer = SourceWriter()
        writer.line(
            "/// The `\(declaration.name)` mock that `@Mock` generates: set each requirement's answer with")
        writer.line("/// its `mock…` method; a requirement without one fails with `MockError.notMocked`.")
        writer.block(
            "\(access.type)final class \(declaration.name)Mock: \(declaration.name), @unchecked Sendable {"
        ) {
            body in
            body.line("// @unchecked: the handlers live in `mocks`, which locks them.")
            body.line("")
            body.line("/// The handlers set so far.")
            body.line("\(access.member)let mocks = Osprey.MockRegistry()")
            body.line("")
            body.line("/// Creates a mock with no handlers.")
            body.line("\(access.member)init() {}")
            body.members(declaration.members) { writer, function in
                guard let (style, callbackIndex) = styles[function.range.lowerBound] else { return }
                writer.line("")
                writeRequirement(
                    &writer, function, style: style, callbackIndex: callbackIndex, access: access.member)
                writer.line("")
                writeSetter(
                    &writer, function, style: style, callbackIndex: callbackIndex, access: access.member)
            }
        }
        return (writer.text, diagnostics)
    }

    /// The handler's closure type: the arguments (callback left out) to the result.
    private static func handlerType(_ function: FunctionRequirement, style: ResultStyle, callbackIndex: Int?)
        -> String
    {
        let arguments = function.parameters.enumerated().filter { $0.offset != callbackIndex }.map {
            $0.element.type.asHandlerParameter
        }
        let result: String
        var effects = " async throws"
        switch style {
        case .async(let type): result = type?.text ?? "Void"
        case .promise(let value): result = value.text
        case .callback(_, let value, let isResponse):
            result = isResponse ? "Osprey.Response" : value?.text ?? "Void"
        case .stream:
            // The requirement calls its handler directly, so the handler can have no effect the
            // requirement lacks.
            result = function.returnType?.withoutAttributes.text ?? "Void"
            effects = (function.isAsync ? " async" : "") + (function.throwsClause != nil ? " throws" : "")
        }
        return "(\(arguments.joined(separator: ", ")))\(effects) -> \(result)"
    }

    private static func writeRequirement(
        _ writer: inout SourceWriter, _ function: FunctionRequirement, style: ResultStyle,
        callbackIndex: Int?,
        access: String
    ) {
        let type = handlerType(function, style: style, callbackIndex: callbackIndex)
        let arguments = function.parameters.enumerated().filter { $0.offset != callbackIndex }.map {
            GeneratedNames.reference($0.element)
        }
        .joined(separator: ", ")
        let requirement = SourceWriter.literal(GeneratedNames.requirement(function))
        let lookup = "let __handler: \(type) = try self.mocks.handler(for: \(requirement))"
        writer.block("\(GeneratedNames.prefix(of: function, access: access))\(function.signature) {") {
            body in
            switch style {
            case .async(let result):
                body.line(lookup)
                body.line((result == nil ? "" : "return ") + "try await __handler(\(arguments))")
            case .promise:
                body.block("return self.mocks.promise {") { inner in
                    inner.line(lookup)
                    inner.line("return try await __handler(\(arguments))")
                }
            case .callback(let parameter, _, _):
                body.block("self.mocks.deliver(to: \(parameter)) {") { inner in
                    inner.line(lookup)
                    inner.line("return try await __handler(\(arguments))")
                }
            case .stream(let kind):
                let throwing = function.throwsClause != nil
                if throwing {
                    body.line(lookup)
                } else {
                    // `as:` names the handler's type: `try?` would otherwise let it be inferred
                    // as an optional, which is never registered.
                    body.block(
                        "guard let __handler = try? self.mocks.handler(for: \(requirement), as: (\(type)).self) else {"
                    ) {
                        inner in
                        for line in kind.unmockedStatements(GeneratedNames.requirement(function)) {
                            inner.line(line)
                        }
                    }
                }
                body.line(
                    "return \(throwing ? "try " : "")\(function.isAsync ? "await " : "")__handler(\(arguments))"
                )
            }
        }
    }

    private static func writeSetter(
        _ writer: inout SourceWriter, _ function: FunctionRequirement, style: ResultStyle,
        callbackIndex: Int?,
        access: String
    ) {
        let name = "mock" + function.baseName.prefix(1).uppercased() + function.baseName.dropFirst()
        let generics = function.genericClause ?? ""
        let whereClause = function.whereClause.map { " " + $0 } ?? ""
        let type = handlerType(function, style: style, callbackIndex: callbackIndex)
        writer.line(
            "/// Answers `\(GeneratedNames.requirement(function))` with `handler`, which gets its arguments.")
        writer.block("\(access)func \(name)\(generics)(_ handler: @escaping \(type))\(whereClause) {") {
            body in
            body.line(
                "self.mocks.set(handler, for: \(SourceWriter.literal(GeneratedNames.requirement(function))))")
        }
    }
}
