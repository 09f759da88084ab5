extension EndpointAnalyzer {
    /// Reports a result a response can never be decoded into, judged from its spelling alone:
    /// `Any` and its kin, existentials, functions, metatypes, and tuples other than `(T, Response)`,
    /// at the top or inside `[T]`, `[K: V]`, `T?` (and the standard library's names for them).
    ///
    /// Without this, the compiler reports such a result inside the expansion, followed by a note
    /// for every `request(_:)` overload that does not fit; a named type of the user's own cannot
    /// be judged here (its conformances are not in the declaration), so the generated code
    /// reports that case at one helper instead (see `APIGenerator+Results.swift`).
    static func checkResultType(
        _ result: ResultStyle, of function: FunctionRequirement, into diagnostics: inout [MacroDiagnostic]
    ) {
        // A stream's own type says what it decodes; the compiler checks `T` of DecodedEvents<T>.
        guard let value = result.value, let (culprit, reason) = problem(in: value, isResult: true) else {
            return
        }
        diagnostics.append(
            MacroDiagnostic(
                "'\(function.baseName)' cannot return \(value.withoutAttributes.text): a response is decoded "
                    + "into the result, which must be Decodable & Sendable, and \(reason); declare a "
                    + "Decodable & Sendable type for the body, or return Data, String or Response to read it raw",
                at: culprit.range))
    }

    /// Names that can never be decoded, with why.
    private static let undecodableNames: [String: String] = [
        "Any": "Any is neither", "AnyObject": "AnyObject is neither", "AnyClass": "AnyClass is neither",
        "AnyHashable": "AnyHashable is not Decodable",
    ]

    /// The standard library's containers, by name: their elements must be decodable too.
    private static let containers: Set<String> = ["Array", "Dictionary", "Optional", "Set"]

    /// The first part of `type` that cannot be decoded, and why; nil when none can be seen.
    /// `isResult` allows the `(T, Response)` pair, which only a whole result can be.
    private static func problem(in type: TypeSyntax, isResult: Bool) -> (TypeSyntax, String)? {
        switch type.shape {
        case .named(let components):
            let names = components.map(\.name)
            if let name = names.last, names.count == 1 || (names.count == 2 && names[0] == "Swift"),
                let reason = undecodableNames[name]
            {
                return (type, reason)
            }
            guard let last = components.last, containers.contains(last.name),
                names.count == 1 || (names.count == 2 && names[0] == "Swift")
            else { return nil }
            return last.arguments.lazy.compactMap { problem(in: $0, isResult: false) }.first
        case .array(let element), .optional(let element), .implicitlyUnwrapped(let element):
            return problem(in: element, isResult: false)
        case .dictionary(let key, let value):
            return problem(in: key, isResult: false) ?? problem(in: value, isResult: false)
        case .tuple(let elements):
            if elements.isEmpty { return nil }
            if isResult, elements.count == 2, elements[1].type.isNamed("Response", modules: ["Osprey"]) {
                return problem(in: elements[0].type, isResult: false)
            }
            return (type, "a tuple is not Decodable (only a whole result can be a (T, Response) pair)")
        case .function:
            return (type, "a function is not Decodable")
        case .metatype:
            return (type, "a metatype is not Decodable")
        case .composition:
            return (type, "\(type.text) is an existential, which is not Decodable")
        case .attributed(_, let specifiers, let inner):
            if specifiers.contains("any") {
                return (type, "\(type.text) is an existential, which is not Decodable")
            }
            return specifiers.contains("some") ? nil : problem(in: inner, isResult: isResult)
        case .variadic:
            return nil
        }
    }
}
