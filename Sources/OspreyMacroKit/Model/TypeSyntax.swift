/// A type as written, parsed far enough to recognise what Osprey gives meaning to (`Query<T>`,
/// `Promise<T>`, `Result<T, Error>`, tuples, optionals, function types), with its exact text for
/// copying into generated code.
public struct TypeSyntax: Equatable, Sendable {
    /// The structure of a type.
    public indirect enum Shape: Equatable, Sendable {
        /// `A.B<C>`: dotted components, each with its generic arguments.
        case named([Component])
        /// `(a: A, B)`; `()` is the empty tuple.
        case tuple([Element])
        /// `[T]`.
        case array(TypeSyntax)
        /// `[K: V]`.
        case dictionary(key: TypeSyntax, value: TypeSyntax)
        /// `T?`.
        case optional(TypeSyntax)
        /// `T!`.
        case implicitlyUnwrapped(TypeSyntax)
        /// `(A) async throws -> R`.
        case function(parameters: [Element], isAsync: Bool, throwsClause: String?, result: TypeSyntax)
        /// `@escaping @Sendable T`, `inout T`, `some P`, `any P`, `sending T`: attributes and
        /// specifiers in front of a type.
        case attributed(attributes: [String], specifiers: [String], TypeSyntax)
        /// `A & B`.
        case composition([TypeSyntax])
        /// `T.Type`, `P.Protocol`.
        case metatype(TypeSyntax, kind: String)
        /// `T...` (a variadic parameter).
        case variadic(TypeSyntax)
    }

    /// One dotted component of a named type.
    public struct Component: Equatable, Sendable {
        /// The name, without backticks.
        public var name: String
        /// Generic arguments.
        public var arguments: [TypeSyntax]
    }

    /// One element of a tuple or of a function type's parameter list.
    public struct Element: Equatable, Sendable {
        /// The label, if any.
        public var label: String?
        /// The type.
        public var type: TypeSyntax
    }

    /// The structure.
    public var shape: Shape
    /// The source text, exactly as written.
    public var text: String
    /// Where it is in the source.
    public var range: Range<Int>
}

extension TypeSyntax {
    /// The type without `@escaping`, `inout`, `sending` and similar in front of it (`some` and
    /// `any` are kept: they change the type).
    public var withoutAttributes: TypeSyntax {
        if case .attributed(_, let specifiers, let inner) = shape,
            !specifiers.contains(where: { $0 == "some" || $0 == "any" })
        {
            return inner.withoutAttributes
        }
        return self
    }

    /// For `Name<T>` (or `Module.Name<T>` for one of `modules`) with one argument, that argument.
    public func argument(ofGeneric name: String, modules: [String] = ["Osprey"]) -> TypeSyntax? {
        guard case .named(let components) = withoutAttributes.shape else { return nil }
        let matches =
            components.count == 1 && components[0].name == name
            || components.count == 2 && modules.contains(components[0].name) && components[1].name == name
        guard matches, let last = components.last, last.arguments.count == 1 else { return nil }
        return last.arguments[0]
    }

    /// Whether this is the plain name `name` (or `Module.name` for one of `modules`).
    public func isNamed(_ name: String, modules: [String] = []) -> Bool {
        guard case .named(let components) = withoutAttributes.shape,
            components.allSatisfy({ $0.arguments.isEmpty })
        else { return false }
        let names = components.map(\.name)
        return names == [name] || (names.count == 2 && names[1] == name && modules.contains(names[0]))
    }

    /// The type as a closure parameter can spell it: `some P` becomes `any P` wherever it is
    /// (`Body<some P>` too), `T...` becomes `[T]`, and `@escaping`, `sending` and the like are
    /// dropped.
    public var asHandlerParameter: String {
        let bare = withoutAttributes
        if case .variadic(let element) = bare.shape { return "[\(element.opaqueTypesAsExistentials)]" }
        return bare.opaqueTypesAsExistentials
    }

    /// The text with every `some` written in it replaced by `any`: a closure's parameter cannot be
    /// opaque, and an argument of the opaque type converts to the existential.
    var opaqueTypesAsExistentials: String {
        var text = Array(self.text.utf8)
        for offset in opaqueKeywordOffsets().sorted(by: >) {
            let start = offset - range.lowerBound
            guard start >= 0, start + 4 <= text.count else { continue }
            text.replaceSubrange(start..<(start + 4), with: Array("any".utf8))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Where each `some` keyword in this type is, as source offsets.
    private func opaqueKeywordOffsets() -> [Int] {
        switch shape {
        case .named(let components):
            return components.flatMap { $0.arguments.flatMap { $0.opaqueKeywordOffsets() } }
        case .tuple(let elements):
            return elements.flatMap { $0.type.opaqueKeywordOffsets() }
        case .array(let element), .optional(let element), .implicitlyUnwrapped(let element),
            .metatype(let element, _), .variadic(let element):
            return element.opaqueKeywordOffsets()
        case .dictionary(let key, let value):
            return key.opaqueKeywordOffsets() + value.opaqueKeywordOffsets()
        case .function(let parameters, _, _, let result):
            return parameters.flatMap { $0.type.opaqueKeywordOffsets() } + result.opaqueKeywordOffsets()
        case .composition(let parts):
            return parts.flatMap { $0.opaqueKeywordOffsets() }
        case .attributed(_, let specifiers, let inner):
            var offsets = inner.opaqueKeywordOffsets()
            // The specifiers are written before the inner type: find `some` among them.
            let prefix = Array(text.utf8.prefix(max(0, inner.range.lowerBound - range.lowerBound)))
            if specifiers.contains("some"), let start = Self.wordOffset("some", in: prefix) {
                offsets.append(range.lowerBound + start)
            }
            return offsets
        }
    }

    /// Where `word` first stands alone (not inside a longer name) in `bytes`.
    private static func wordOffset(_ word: String, in bytes: [UInt8]) -> Int? {
        let word = Array(word.utf8)
        guard bytes.count >= word.count else { return nil }
        func isNameByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || byte >= 0x80
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        for start in 0...(bytes.count - word.count) where Array(bytes[start..<(start + word.count)]) == word {
            let before = start == 0 ? nil : bytes[start - 1]
            let after = start + word.count < bytes.count ? bytes[start + word.count] : nil
            if !(before.map(isNameByte) ?? false), !(after.map(isNameByte) ?? false) { return start }
        }
        return nil
    }

    /// Whether this is a tuple with at least one labelled element.
    public var hasLabelledElements: Bool {
        if case .tuple(let elements) = withoutAttributes.shape {
            return elements.contains { $0.label != nil }
        }
        return false
    }

    /// Whether this is `Void` or `()`.
    public var isVoid: Bool {
        if case .tuple(let elements) = withoutAttributes.shape { return elements.isEmpty }
        return isNamed("Void", modules: ["Swift"])
    }

    /// The first part of this type, itself included, that `matches`: looked for in generic
    /// arguments, tuple elements, and the elements of arrays, optionals and dictionaries (not in
    /// function types, compositions or metatypes).
    public func firstPart(where matches: (TypeSyntax) -> Bool) -> TypeSyntax? {
        if matches(self) { return self }
        let parts: [TypeSyntax]
        switch shape {
        case .named(let components): parts = components.flatMap(\.arguments)
        case .tuple(let elements): parts = elements.map(\.type)
        case .array(let element), .optional(let element), .implicitlyUnwrapped(let element),
            .attributed(_, _, let element):
            parts = [element]
        case .dictionary(let key, let value): parts = [key, value]
        case .function, .composition, .metatype, .variadic: parts = []
        }
        for part in parts {
            if let found = part.firstPart(where: matches) { return found }
        }
        return nil
    }

    /// `T?` unwrapped once, or nil.
    public var optionalWrapped: TypeSyntax? {
        switch withoutAttributes.shape {
        case .optional(let wrapped), .implicitlyUnwrapped(let wrapped): wrapped
        default: argument(ofGeneric: "Optional", modules: ["Swift"])
        }
    }
}
