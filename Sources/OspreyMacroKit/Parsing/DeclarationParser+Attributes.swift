extension DeclarationParser {
    /// Attributes such as `@API`, `@GET("/users")`, `@Osprey.Headers(["A": "b"])`,
    /// `@available(iOS 15, *)`.
    mutating func parseAttributes() -> [Attribute] {
        var attributes: [Attribute] = []
        while cursor.current.is("@") {
            let at = cursor.advance()
            guard cursor.current.kind == .identifier else {
                report("expected an attribute name after '@'", at: at.range)
                break
            }
            var nameToken = cursor.advance()
            // A qualified name: `@Osprey.GET`.
            while cursor.current.is("."), !cursor.current.hasLeadingSpace, cursor.peek().kind == .identifier {
                cursor.advance()
                nameToken = cursor.advance()
            }
            var arguments: [Attribute.Argument]?
            // Arguments only when `(` touches the name: `@escaping (Int) -> Void` has none.
            if cursor.current.is("("), !cursor.current.hasLeadingSpace {
                arguments = parseArguments()
            }
            let range = cursor.range(from: at)
            attributes.append(
                Attribute(
                    name: nameToken.name, arguments: arguments, range: range, text: cursor.text(range),
                    nameRange: nameToken.range))
        }
        return attributes
    }

    /// `(label: expression, expression)`: each argument's label and exact text.
    mutating func parseArguments() -> [Attribute.Argument] {
        let open = cursor.advance()
        var arguments: [Attribute.Argument] = []
        while !cursor.isAtEnd, !cursor.current.is(")") {
            var label: String?
            if cursor.current.kind == .identifier, cursor.peek().is(":") {
                label = cursor.advance().name
                cursor.advance()
            }
            let first = cursor.current
            var tokens: [Token] = []
            while !cursor.isAtEnd, !cursor.current.is(","), !cursor.current.is(")") {
                let groupStart = cursor.position
                if ["(", "[", "{"].contains(cursor.current.text), cursor.current.kind == .punctuation {
                    cursor.skipGroup()
                } else {
                    cursor.advance()
                }
                tokens += cursor.tokens[groupStart..<cursor.position]
            }
            let range = cursor.range(from: first)
            if tokens.isEmpty { report("expected an argument", at: first.range) }
            arguments.append(
                Attribute.Argument(label: label, expression: cursor.text(range), range: range, tokens: tokens)
            )
            if cursor.consume(",") == nil { break }
        }
        if cursor.consume(")") == nil {
            report("expected ')' to close the attribute's arguments", at: open.range)
        }
        return arguments
    }
}
