extension DeclarationParser {
    static let typeSpecifiers: Set<String> = [
        "inout", "some", "any", "borrowing", "consuming", "sending", "isolated", "each", "repeat", "__owned",
        "__shared",
    ]

    /// Deeper types than this are refused (the compiler stops at 256 too): the parser recurses.
    static let maximumTypeDepth = 128

    /// A type: attributes and specifiers, then a composition of postfix types.
    mutating func parseType() -> TypeSyntax {
        let first = cursor.current
        typeDepth += 1
        defer { typeDepth -= 1 }
        guard typeDepth <= Self.maximumTypeDepth else {
            if typeDepth == Self.maximumTypeDepth + 1 {
                report("this type is nested too deeply", at: first.range)
            }
            // Skip the rest of the type: up to what ends a parameter or a requirement.
            while !cursor.isAtEnd,
                !endsType(cursor.current) || cursor.current.is(">") || cursor.current.is(")")
            {
                if cursor.current.is("}") || cursor.current.kind == .pound { break }
                cursor.advance()
            }
            return make(.named([]), from: first)
        }
        var attributes: [String] = []
        var specifiers: [String] = []
        while true {
            if cursor.current.is("@"), cursor.peek().kind == .identifier {
                let at = cursor.current
                _ = parseAttributes().first
                attributes.append(cursor.text(cursor.range(from: at)))
            } else if cursor.current.kind == .identifier, Self.typeSpecifiers.contains(cursor.current.text),
                cursor.peek().kind == .identifier || cursor.peek().is("(") || cursor.peek().is("[")
                    || cursor.peek().is("@")
            {
                specifiers.append(cursor.advance().text)
            } else {
                break
            }
        }
        var type = parseComposition()
        if !attributes.isEmpty || !specifiers.isEmpty {
            type = TypeSyntax(
                shape: .attributed(attributes: attributes, specifiers: specifiers, type),
                text: cursor.text(cursor.range(from: first)), range: cursor.range(from: first))
        }
        return type
    }

    private mutating func parseComposition() -> TypeSyntax {
        let first = cursor.current
        var parts = [parsePostfix()]
        while cursor.current.is("&") {
            cursor.advance()
            parts.append(parsePostfix())
        }
        guard parts.count > 1 else { return parts[0] }
        return make(.composition(parts), from: first)
    }

    private mutating func parsePostfix() -> TypeSyntax {
        let first = cursor.current
        var type = parsePrimary()
        while true {
            if cursor.current.is("?"), !cursor.current.hasLeadingSpace {
                cursor.advance()
                type = make(.optional(type), from: first)
            } else if cursor.current.is("!"), !cursor.current.hasLeadingSpace {
                cursor.advance()
                type = make(.implicitlyUnwrapped(type), from: first)
            } else if cursor.current.is("."), cursor.peek().is("Type") || cursor.peek().is("Protocol") {
                cursor.advance()
                let kind = cursor.advance().text
                type = make(.metatype(type, kind: kind), from: first)
            } else if cursor.current.is("...") {
                cursor.advance()
                type = make(.variadic(type), from: first)
            } else {
                return type
            }
        }
    }

    private mutating func parsePrimary() -> TypeSyntax {
        let first = cursor.current
        if cursor.current.is("(") {
            return parseTupleOrFunction()
        }
        if cursor.current.is("[") {
            cursor.advance()
            let element = parseType()
            var shape = TypeSyntax.Shape.array(element)
            if cursor.consume(":") != nil {
                shape = .dictionary(key: element, value: parseType())
            }
            if cursor.consume("]") == nil {
                report("expected ']' to close the type", at: cursor.current.range)
            }
            return make(shape, from: first)
        }
        guard cursor.current.kind == .identifier else {
            report("expected a type", at: cursor.current.range)
            if !endsType(cursor.current) { cursor.advance() }
            return make(.named([]), from: first)
        }
        var components: [TypeSyntax.Component] = []
        repeat {
            let name = cursor.advance()
            var arguments: [TypeSyntax] = []
            if cursor.current.is("<"), !cursor.current.hasLeadingSpace {
                cursor.advance()
                while !cursor.isAtEnd, !cursor.current.is(">") {
                    let before = cursor.position
                    arguments.append(parseType())
                    if cursor.consume(",") == nil { break }
                    if cursor.position == before { cursor.advance() }
                }
                if cursor.consume(">") == nil {
                    report("expected '>' to close the generic arguments", at: cursor.current.range)
                }
            }
            components.append(TypeSyntax.Component(name: name.name, arguments: arguments))
        } while cursor.current.is(".") && cursor.peek().kind == .identifier && !cursor.peek().is("Type")
            && !cursor.peek().is("Protocol") && cursor.advance().is(".")
        return make(.named(components), from: first)
    }

    /// `( … )`: a tuple, a parenthesised type, or a function type's parameters.
    private mutating func parseTupleOrFunction() -> TypeSyntax {
        let first = cursor.advance()
        var elements: [TypeSyntax.Element] = []
        while !cursor.isAtEnd, !cursor.current.is(")") {
            let before = cursor.position
            var label: String?
            // `label: T` or `_ name: T` (in function types).
            if cursor.current.kind == .identifier, cursor.peek().is(":") {
                label = cursor.advance().name
                cursor.advance()
            } else if cursor.current.kind == .identifier, cursor.peek().kind == .identifier,
                cursor.peek(2).is(":")
            {
                label = cursor.advance().name
                cursor.advance()
                cursor.advance()
            }
            elements.append(TypeSyntax.Element(label: label, type: parseType()))
            if cursor.consume(",") == nil {
                if !cursor.current.is(")") {
                    report("expected ',' or ')' in the type", at: cursor.current.range)
                    while !cursor.isAtEnd, !cursor.current.is(")"), !endsType(cursor.current) {
                        cursor.advance()
                    }
                }
                break
            }
            if cursor.position == before { cursor.advance() }
        }
        if cursor.consume(")") == nil { report("expected ')' to close the type", at: cursor.current.range) }

        var isAsync = false
        var throwsClause: String?
        var sawEffect = false
        while cursor.current.kind == .identifier, Self.effectKeywords.contains(cursor.current.text) {
            sawEffect = true
            let effect = cursor.advance()
            if effect.text == "async" {
                isAsync = true
            } else {
                if cursor.current.is("("), !cursor.current.hasLeadingSpace { cursor.skipGroup() }
                throwsClause = cursor.text(cursor.range(from: effect))
            }
        }
        if cursor.consume("->") != nil {
            let result = parseType()
            return make(
                .function(parameters: elements, isAsync: isAsync, throwsClause: throwsClause, result: result),
                from: first)
        }
        if sawEffect { report("expected '->' after the function type's effects", at: cursor.current.range) }
        if elements.count == 1, elements[0].label == nil {
            var inner = elements[0].type
            inner.text = cursor.text(cursor.range(from: first))
            inner.range = cursor.range(from: first)
            return inner
        }
        return make(.tuple(elements), from: first)
    }

    /// Tokens that can never continue a type: where the parser stops after an error.
    func endsType(_ token: Token) -> Bool {
        token.kind == .end || token.is(",") || token.is(")") || token.is("]") || token.is(">")
            || token.is("{")
            || token.is("}") || token.is("=") || token.kind == .pound
    }

    func make(_ shape: TypeSyntax.Shape, from first: Token) -> TypeSyntax {
        let range = cursor.range(from: first)
        return TypeSyntax(shape: shape, text: cursor.text(range), range: range)
    }
}
