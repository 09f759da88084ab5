/// Classifies how a requirement delivers its result: `async throws`, a `Promise`, a completion
/// handler as its last parameter, or a stream it returns (see `ResultAnalyzer+Streams.swift`).
enum ResultAnalyzer {
    /// The result style (nil when unsupported, with a diagnostic) and the index of the callback
    /// parameter, if any.
    static func analyze(_ function: FunctionRequirement, into diagnostics: inout [MacroDiagnostic])
        -> (ResultStyle?, Int?)
    {
        let returnType = function.returnType.flatMap { $0.isVoid ? nil : $0 }
        if let typed = function.throwsClause, typed.contains("("),
            !["throws(anyError)", "throws(Error)", "throws(Swift.Error)"].contains(
                typed.filter { !$0.isWhitespace })
        {
            diagnostics.append(
                MacroDiagnostic(
                    "typed throws is not supported: a request can fail with APIError or an error of your hooks",
                    at: function.funcKeywordRange))
            return (nil, nil)
        }
        if let returnType, let kind = streamKind(of: returnType) { return (.stream(kind), nil) }
        if let (diagnostic, callbackIndex) = misplacedStream(in: function) {
            diagnostics.append(diagnostic)
            return (nil, callbackIndex)
        }
        if function.isAsync {
            guard function.throwsClause != nil else {
                diagnostics.append(
                    MacroDiagnostic(
                        "'\(function.baseName)' must be 'async throws': a request can fail",
                        at: function.funcKeywordRange))
                return (nil, nil)
            }
            if let returnType,
                returnType.argument(ofGeneric: "Promise", modules: ["Promises", "Osprey"]) != nil
            {
                diagnostics.append(
                    MacroDiagnostic(
                        "return either a Promise or 'async throws', not both", at: returnType.range))
                return (nil, nil)
            }
            return (.async(returnType), nil)
        }
        if let returnType,
            let value = returnType.argument(ofGeneric: "Promise", modules: ["Promises", "Osprey"])
        {
            return (.promise(value), nil)
        }
        if returnType == nil, let last = function.parameters.last, let callback = callback(last.type) {
            return (
                .callback(parameter: last.name, value: callback.value, isResponse: callback.isResponse),
                function.parameters.count - 1
            )
        }
        diagnostics.append(
            MacroDiagnostic(
                "unsupported result for '\(function.baseName)': declare it 'async throws', return a Promise<T>, "
                    + "or take a completion handler '@escaping (Result<T, Error>) -> Void' as the last parameter",
                at: returnType?.range ?? function.funcKeywordRange,
                fixIts: returnType == nil || function.throwsClause != nil
                    ? [] : [.init("make it 'async throws'", changes: [asyncThrows(after: function)])]
            ))
        return (nil, nil)
    }

    private static func asyncThrows(after function: FunctionRequirement) -> MacroDiagnostic.Change {
        let end = function.parameterListRange.upperBound
        return MacroDiagnostic.Change(range: end..<end, newText: " async throws")
    }

    /// For `@escaping (Result<T, Error>) -> Void` or `(Response) -> Void`: T (nil for Void) and
    /// whether it is a Response handler.
    static func callback(_ type: TypeSyntax) -> (value: TypeSyntax?, isResponse: Bool)? {
        guard case .function(let parameters, _, _, let result) = type.withoutAttributes.shape, result.isVoid,
            parameters.count == 1
        else { return nil }
        let argument = parameters[0].type
        if argument.isNamed("Response", modules: ["Osprey"]) { return (nil, true) }
        guard case .named(let components) = argument.withoutAttributes.shape, let last = components.last,
            last.name == "Result", last.arguments.count == 2
        else { return nil }
        let value = last.arguments[0]
        return (value.isVoid ? nil : value, false)
    }
}
