extension DeclarationParser {
    static let effectKeywords: Set<String> = ["async", "throws", "rethrows", "reasync"]

    /// `func name<T>(parameters) async throws -> Result where …`, from `func` on.
    mutating func parseFunction(start: Token, attributes: [Attribute], modifiers: [String])
        -> FunctionRequirement?
    {
        let funcToken = cursor.advance()
        let nameToken = cursor.current
        guard nameToken.kind == .identifier else {
            report("expected a function name (operators are not supported)", at: nameToken.range)
            skipToNextMember()
            return nil
        }
        cursor.advance()

        var genericClause: String?
        if cursor.current.is("<") {
            let first = cursor.current
            cursor.skipGroup()
            genericClause = cursor.text(cursor.range(from: first))
        }

        guard cursor.current.is("(") else {
            report("expected '(' to start the parameter list", at: cursor.current.range)
            skipToNextMember()
            return nil
        }
        let listStart = cursor.current
        let parameters = parseParameters()
        let parameterListRange = cursor.range(from: listStart)

        var isAsync = false
        var throwsClause: String?
        while cursor.current.kind == .identifier, Self.effectKeywords.contains(cursor.current.text) {
            let effect = cursor.advance()
            switch effect.text {
            case "async", "reasync":
                isAsync = true
            default:
                if cursor.current.is("("), !cursor.current.hasLeadingSpace { cursor.skipGroup() }
                throwsClause = cursor.text(cursor.range(from: effect))
            }
        }

        var returnType: TypeSyntax?
        if cursor.consume("->") != nil {
            returnType = parseType()
        }

        var whereClause: String?
        if cursor.current.is("where") {
            let first = cursor.current
            while !cursor.isAtEnd, !endsRequirement(cursor.current) {
                if cursor.current.is("(") || cursor.current.is("[") || cursor.current.is("<") {
                    cursor.skipGroup()
                } else {
                    cursor.advance()
                }
            }
            whereClause = cursor.text(cursor.range(from: first))
        }
        let signatureEnd = cursor.previous.range.upperBound

        if cursor.current.is("{") {
            report("a protocol requirement has no body", at: cursor.current.range)
            cursor.skipGroup()
        } else if !endsRequirement(cursor.current) {
            report(
                "unexpected '\(cursor.current.text)' after the function's signature", at: cursor.current.range
            )
            skipToNextMember()
        }

        return FunctionRequirement(
            attributes: attributes,
            modifiers: modifiers,
            name: nameToken.text,
            baseName: nameToken.name,
            genericClause: genericClause,
            parameters: parameters,
            isAsync: isAsync,
            throwsClause: throwsClause,
            returnType: returnType,
            whereClause: whereClause,
            signature: cursor.text(funcToken.range.lowerBound..<signatureEnd),
            range: start.range.lowerBound..<signatureEnd,
            funcKeywordRange: funcToken.range,
            parameterListRange: parameterListRange
        )
    }

    /// Whether `token` starts another requirement or closes the protocol or a clause.
    func endsRequirement(_ token: Token) -> Bool {
        if token.kind == .end || token.is("}") || token.is(";") || token.kind == .pound { return true }
        return token.startsLine && (token.is("@") || Self.memberKeywords.contains(token.text))
    }

    /// `(label name: Type, _ name: Type, name: Type = default)`.
    mutating func parseParameters() -> [Parameter] {
        let open = cursor.advance()
        var parameters: [Parameter] = []
        while !cursor.isAtEnd, !cursor.current.is(")") {
            let before = cursor.position
            let first = cursor.current
            _ = parseAttributes()
            guard cursor.current.kind == .identifier else {
                report("expected a parameter name", at: cursor.current.range)
                skipParameter()
                continue
            }
            let label = cursor.advance()
            var name = label
            if cursor.current.kind == .identifier { name = cursor.advance() }
            guard cursor.consume(":") != nil else {
                report("expected ':' and a type after the parameter name", at: cursor.current.range)
                skipParameter()
                continue
            }
            let type = parseType()
            if cursor.consume("=") != nil {
                while !cursor.isAtEnd, !cursor.current.is(","), !cursor.current.is(")") {
                    if ["(", "[", "{"].contains(cursor.current.text) {
                        cursor.skipGroup()
                    } else {
                        cursor.advance()
                    }
                }
            }
            parameters.append(
                Parameter(label: label.text, name: name.text, type: type, range: cursor.range(from: first)))
            if cursor.consume(",") == nil, !cursor.current.is(")") {
                report("expected ',' or ')' in the parameter list", at: cursor.current.range)
                skipParameter()
            }
            if cursor.position == before { cursor.advance() }
        }
        if cursor.consume(")") == nil {
            report("expected ')' to close the parameter list", at: open.range)
        }
        return parameters
    }

    /// Skips the rest of a parameter, up to and including its `,`.
    private mutating func skipParameter() {
        while !cursor.isAtEnd, !cursor.current.is(","), !cursor.current.is(")") {
            if ["(", "[", "{"].contains(cursor.current.text) { cursor.skipGroup() } else { cursor.advance() }
        }
        _ = cursor.consume(",")
    }
}
