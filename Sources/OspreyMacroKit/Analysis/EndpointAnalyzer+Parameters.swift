extension EndpointAnalyzer {
    /// The role a parameter plays: from its wrapper type (`Query<T>`, `Header<T>`, `Field<T>`,
    /// `Body<T>`, `Path<T>`), else from the path, else from the method.
    static func role(
        of parameter: Parameter, method: String, template: PathTemplate, isMultipart: Bool,
        into diagnostics: inout [MacroDiagnostic]
    ) -> ParameterRole? {
        let type = parameter.type
        if case .attributed(_, let specifiers, _) = type.shape, specifiers.contains("inout") {
            diagnostics.append(
                MacroDiagnostic("'inout' parameters are not supported by @API", at: parameter.range))
            return nil
        }
        if case .function = type.withoutAttributes.shape {
            diagnostics.append(
                MacroDiagnostic(
                    "a closure parameter can only be a completion handler taking Result<T, Error> or Response: "
                        + "the last parameter of a requirement that is not async and returns nothing",
                    at: parameter.range))
            return nil
        }
        if parameter.name == "_" {
            diagnostics.append(
                MacroDiagnostic(
                    "give this parameter a name: @API uses it as the key", at: parameter.range,
                    fixIts: [
                        .init(
                            "name it",
                            changes: [
                                .init(
                                    range: parameter.range.lowerBound..<(parameter.range.lowerBound + 1),
                                    newText: "_ value")
                            ])
                    ]))
            return nil
        }
        if type.argument(ofGeneric: "Query") != nil { return .query(key: parameter.key) }
        if type.argument(ofGeneric: "Header") != nil { return .header(name: capitalKebabCase(parameter.key)) }
        if type.argument(ofGeneric: "Field") != nil {
            return isMultipart ? .part(key: parameter.key) : .field(key: parameter.key)
        }
        if type.argument(ofGeneric: "Body") != nil { return .body }
        if type.argument(ofGeneric: "Path") != nil || template.names.contains(parameter.key) {
            let value = type.argument(ofGeneric: "Path") ?? type.withoutAttributes
            if value.optionalWrapped != nil {
                diagnostics.append(
                    MacroDiagnostic(
                        "the path value '\(parameter.key)' cannot be optional: a path needs every segment",
                        at: parameter.type.range))
                return nil
            }
            return .path(key: parameter.key)
        }
        if queryMethods.contains(method) { return .query(key: parameter.key) }
        return isMultipart ? .part(key: parameter.key) : .field(key: parameter.key)
    }

    /// Every placeholder has a path parameter, and every `Path<T>` a placeholder.
    static func checkPath(
        _ template: PathTemplate, roles: [(Parameter, ParameterRole)], function: FunctionRequirement,
        into diagnostics: inout [MacroDiagnostic]
    ) {
        let pathKeys = Set(roles.compactMap { if case .path(let key) = $0.1 { key } else { nil } })
        var reported: Set<String> = []
        for placeholder in template.placeholders where !pathKeys.contains(placeholder.name) {
            guard reported.insert(placeholder.name).inserted else { continue }
            let list = function.parameterListRange
            let insertion = (list.upperBound - 1)..<(list.upperBound - 1)
            let newText = (function.parameters.isEmpty ? "" : ", ") + "\(placeholder.name): String"
            diagnostics.append(
                MacroDiagnostic(
                    "the path parameter '\(placeholder.name)' has no matching argument in '\(function.baseName)'",
                    at: placeholder.range,
                    fixIts: [
                        .init(
                            "add the parameter '\(placeholder.name)'",
                            changes: [.init(range: insertion, newText: newText)])
                    ]
                ))
        }
        let placeholderNames = Set(template.names)
        for (parameter, role) in roles {
            guard case .path(let key) = role, !placeholderNames.contains(key) else { continue }
            diagnostics.append(
                MacroDiagnostic(
                    "'\(parameter.key)' is a Path<T> parameter, but the path has no ':\(key)' or '{\(key)}'",
                    at: parameter.range))
        }
    }

    /// At most one `Body`, never beside fields; no body on `GET`/`HEAD`; parts only under `@Multipart`.
    static func checkBody(
        _ roles: [(Parameter, ParameterRole)], method: String, isMultipart: Bool,
        into diagnostics: inout [MacroDiagnostic]
    ) {
        let bodies = roles.filter { $0.1 == .body }.map(\.0)
        for extra in bodies.dropFirst() {
            diagnostics.append(
                MacroDiagnostic(
                    "a request has one body: '\(extra.key)' is a second Body<T> parameter", at: extra.range,
                    notes: [.init("the first Body<T> parameter is here", at: bodies[0].range)]))
        }
        let fields = roles.filter {
            switch $0.1 {
            case .field, .part: true
            default: false
            }
        }.map(\.0)
        if let body = bodies.first, let field = fields.first {
            diagnostics.append(
                MacroDiagnostic(
                    "Body<T> sets the whole body, so it cannot be combined with body fields such as '\(field.key)'",
                    at: body.range,
                    notes: [
                        .init(
                            "'\(field.key)' is a body field; make it Query<T> or Header<T>", at: field.range)
                    ]))
        }
        if bodylessMethods.contains(method), let first = bodies.first ?? fields.first {
            diagnostics.append(
                MacroDiagnostic(
                    "a \(method) request has no body: '\(first.key)' cannot be a body field or Body<T>; use Query<T>",
                    at: first.range))
        }
        if isMultipart {
            for (parameter, role) in roles where role == .body {
                diagnostics.append(
                    MacroDiagnostic(
                        "under @Multipart the body is made of Part parameters, not Body<T>",
                        at: parameter.range))
            }
            for (parameter, role) in roles {
                guard case .part = role else { continue }
                let type = parameter.type.argument(ofGeneric: "Field") ?? parameter.type.withoutAttributes
                let unwrapped = type.optionalWrapped ?? type
                guard !unwrapped.isNamed("Part", modules: ["Osprey"]) else { continue }
                diagnostics.append(
                    MacroDiagnostic(
                        "under @Multipart every body parameter must be a Part; '\(parameter.key)' is \(parameter.type.text)",
                        at: parameter.type.range))
            }
        }
    }

    /// `customHeader` → `Custom-Header`; `xAPIKey` → `X-API-Key`.
    public static func capitalKebabCase(_ name: String) -> String {
        let characters = Array(name)
        var words: [String] = []
        var word = ""
        for (index, character) in characters.enumerated() {
            if character == "_" || character == "-" {
                if !word.isEmpty { words.append(word) }
                word = ""
                continue
            }
            if character.isUppercase, index > 0, !word.isEmpty {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && next?.isLowercase == true)
                {
                    words.append(word)
                    word = ""
                }
            }
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        return words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
    }
}
