/// Reads a protocol declaration (the text the compiler hands to `@API` and `@Mock`) into a
/// ``ProtocolDeclaration``.
///
/// The parser recovers from what it does not understand: it reports a diagnostic at the exact
/// token and skips to the next requirement, so one mistake yields one clear error. It always
/// ends, whatever the input, because every loop consumes a token or stops.
public struct DeclarationParser {
    var cursor: TokenCursor
    var diagnostics: [MacroDiagnostic]
    /// How many types the type parser is inside.
    var typeDepth = 0

    /// Parses `source`, which must hold one protocol declaration (with its attributes).
    /// - Returns: The protocol, or nil when the source is not a protocol; and the diagnostics.
    public static func parseProtocol(_ source: String) -> (ProtocolDeclaration?, [MacroDiagnostic]) {
        let (tokens, lexerDiagnostics) = Lexer.tokenize(source)
        var parser = DeclarationParser(
            cursor: TokenCursor(tokens: tokens, source: Array(source.utf8)), diagnostics: lexerDiagnostics)
        let declaration = parser.parseProtocol()
        return (declaration, parser.diagnostics)
    }

    /// Words that start a requirement.
    static let memberKeywords: Set<String> = modifiers.union([
        "func", "var", "let", "init", "subscript", "associatedtype", "typealias",
    ])

    static let accessLevels: Set<String> = [
        "public", "package", "internal", "fileprivate", "private", "open",
    ]
    static let modifiers: Set<String> = accessLevels.union([
        "final", "static", "class", "mutating", "nonmutating", "nonisolated", "override", "required",
        "convenience", "dynamic", "optional", "lazy", "weak", "unowned", "indirect", "isolated", "consuming",
        "borrowing", "distributed", "__consuming",
    ])

    mutating func parseProtocol() -> ProtocolDeclaration? {
        let attributes = parseAttributes()
        let modifiers = parseModifiers()
        guard cursor.current.is("protocol") else {
            report("@API and @Mock can only be attached to a protocol", at: cursor.current.range)
            return nil
        }
        cursor.advance()
        let nameToken = cursor.current
        guard nameToken.kind == .identifier else {
            report("expected the protocol's name", at: nameToken.range)
            return nil
        }
        cursor.advance()
        // Primary associated types and a where clause do not change what is generated.
        if cursor.current.is("<") { cursor.skipGroup() }
        let inheritedTypes = cursor.current.is(":") ? parseInheritance() : []
        while !cursor.isAtEnd, !cursor.current.is("{") {
            if cursor.current.is("<") { cursor.skipGroup() } else { cursor.advance() }
        }
        guard cursor.consume("{") != nil else {
            report("expected '{' to start the protocol's body", at: cursor.current.range)
            return nil
        }
        let members = parseMembers(until: ["}"])
        if cursor.consume("}") == nil {
            report("expected '}' to end the protocol's body", at: cursor.current.range)
        }
        return ProtocolDeclaration(
            attributes: attributes,
            accessLevel: modifiers.first { Self.accessLevels.contains($0) },
            name: nameToken.name,
            nameRange: nameToken.range,
            inheritedTypes: inheritedTypes,
            members: members
        )
    }

    /// The protocols after `:`, up to `where` or `{` (suppressions such as `~Copyable` left out).
    mutating func parseInheritance() -> [TypeSyntax] {
        var types: [TypeSyntax] = []
        repeat {
            cursor.advance()
            if cursor.current.is("~") {
                while !cursor.isAtEnd, !cursor.current.is(","), !cursor.current.is("{"),
                    !cursor.current.is("where")
                {
                    cursor.advance()
                }
                continue
            }
            let before = cursor.position
            let type = parseType()
            if cursor.position != before { types.append(type) }
        } while cursor.current.is(",")
        return types
    }

    /// Members up to (not including) a token in `terminators`, such as `}` or `#endif`.
    mutating func parseMembers(until terminators: Set<String>) -> [Member] {
        var members: [Member] = []
        while !cursor.isAtEnd, !terminators.contains(cursor.current.text) {
            let before = cursor.position
            if cursor.current.is(";") {
                cursor.advance()
            } else if cursor.current.kind == .pound, cursor.current.text == "#if" {
                members.append(.conditional(parseConditional()))
            } else if cursor.current.kind == .pound,
                ["#elseif", "#else", "#endif"].contains(cursor.current.text)
            {
                report("'\(cursor.current.text)' without '#if'", at: cursor.current.range)
                cursor.advance()
            } else if let function = parseMember() {
                members.append(.function(function))
            }
            if cursor.position == before { cursor.advance() }
        }
        return members
    }

    /// An `#if` block, from `#if` to `#endif`.
    mutating func parseConditional() -> [ConditionalClause] {
        var clauses: [ConditionalClause] = []
        let start = cursor.current
        while !cursor.isAtEnd, ["#if", "#elseif", "#else"].contains(cursor.current.text) {
            let directive = cursor.advance()
            var end = directive.range.upperBound
            // The condition runs to the end of the directive's line.
            while !cursor.isAtEnd, !cursor.current.startsLine {
                end = cursor.current.range.upperBound
                cursor.advance()
            }
            let members = parseMembers(until: ["#elseif", "#else", "#endif", "}"])
            clauses.append(
                ConditionalClause(directive: cursor.text(directive.range.lowerBound..<end), members: members))
        }
        if cursor.current.text == "#endif" {
            cursor.advance()
        } else {
            report("'#if' without '#endif'", at: start.range)
        }
        return clauses
    }

    /// One requirement. Functions are parsed; anything else is reported and skipped.
    mutating func parseMember() -> FunctionRequirement? {
        let start = cursor.current
        var attributes = parseAttributes()
        while cursor.current.kind == .pound, cursor.current.text == "#if" {
            report(
                "'#if' between a requirement's attributes is not supported: put the whole requirement in the '#if' block",
                at: cursor.current.range)
            skipConditional()
            attributes += parseAttributes()
        }
        let modifiers = parseModifiers()
        if cursor.current.is("func") {
            return parseFunction(start: start, attributes: attributes, modifiers: modifiers)
        }
        let keyword = cursor.current
        if ["var", "let", "subscript", "init", "associatedtype", "typealias"].contains(keyword.text) {
            report(
                "@API and @Mock generate functions only; '\(keyword.text)' requirements are not supported",
                at: keyword.range)
        } else {
            report("expected a function requirement", at: keyword.range)
        }
        skipToNextMember()
        return nil
    }

    /// Skips an `#if` block, nested ones included, up to and including its `#endif`.
    mutating func skipConditional() {
        var depth = 0
        repeat {
            if cursor.current.text == "#if" { depth += 1 }
            if cursor.current.text == "#endif" { depth -= 1 }
            cursor.advance()
        } while depth > 0 && !cursor.isAtEnd
    }

    /// Skips to the token that starts the next requirement (or closes the protocol).
    mutating func skipToNextMember() {
        cursor.advance()
        while !cursor.isAtEnd {
            let token = cursor.current
            if token.is("}") || token.is(";") || token.kind == .pound { return }
            if token.startsLine, token.is("@") || Self.memberKeywords.contains(token.text) {
                return
            }
            if token.is("(") || token.is("[") || token.is("{") {
                cursor.skipGroup()
            } else {
                cursor.advance()
            }
        }
    }

    /// Modifiers such as `public`, `static` or `private(set)`.
    mutating func parseModifiers() -> [String] {
        var modifiers: [String] = []
        while cursor.current.kind == .identifier, Self.modifiers.contains(cursor.current.text),
            !cursor.current.text.hasPrefix("`")
        {
            modifiers.append(cursor.advance().text)
            if cursor.current.is("("), !cursor.current.hasLeadingSpace { cursor.skipGroup() }
        }
        return modifiers
    }

    mutating func report(_ message: String, at range: Range<Int>, fixIts: [MacroDiagnostic.FixIt] = []) {
        diagnostics.append(MacroDiagnostic(message, at: range, fixIts: fixIts))
    }
}
