// How a generated method gets its result. A result spelled as one Osprey reads raw (`Data`,
// `String`, `Response`, an optional of one, a pair with one, or nothing) or opens (`WebSocket`)
// is asked of `request(_:)` directly. Any other result is decoded, through private helpers generic over
// `Value: Decodable & Sendable` whose overloads match `request(_:)`'s decoding ones: when the
// user's type is not both (which the macro cannot see), the compiler reports it once, at the
// helper's call, rather than at each use of `Promise<Value>` or with a note for every
// `request(_:)` overload; an unavailable fallback makes "not Decodable" a message saying what to
// write.

extension APIGenerator {
    /// The ways a requirement delivers a decoded result, each with its own helpers.
    enum DecodedDelivery: CaseIterable {
        /// `async throws -> T`: `__decodedValue(of:)`.
        case value
        /// `-> Promise<T>`: `__decodedPromise(of:)`.
        case promise
        /// A `(Result<T, Error>) -> Void` completion handler: `__deliverDecoded(_:to:)`.
        case callback
    }

    /// How `endpoint`'s result is decoded through the helpers, or nil when `request(_:)` is asked
    /// directly (no result, a raw result, a `Response` handler).
    static func decodedDelivery(of endpoint: Endpoint) -> DecodedDelivery? {
        switch endpoint.result {
        case .async(let type?) where !isReadRaw(type): .value
        case .promise(let type) where !isReadRaw(type): .promise
        case .callback(_, let type?, false) where !isReadRaw(type): .callback
        default: nil
        }
    }

    /// Whether Osprey reads a result of this spelling without decoding it (or may, for a tuple
    /// that is not a `(T, Response)` pair: `request(_:)` then says what it offers).
    static func isReadRaw(_ type: TypeSyntax) -> Bool {
        let type = type.withoutAttributes
        if case .tuple(let elements) = type.shape {
            return elements.count != 2 || isRawName(elements[0].type)
        }
        return isRawName(type.optionalWrapped ?? type)
    }

    private static func isRawName(_ type: TypeSyntax) -> Bool {
        type.isVoid || type.isNamed("Data", modules: ["Foundation"])
            || type.isNamed("String", modules: ["Swift"]) || type.isNamed("Response", modules: ["Osprey"])
            || type.isNamed("WebSocket", modules: ["Osprey"])
    }

    /// The statements that send `endpoint`'s request (in `__request`) and deliver its decoded
    /// result. The call's line names the requirement: it is the line the compiler shows when the
    /// result is not Decodable & Sendable.
    static func decodedResultStatements(_ endpoint: Endpoint, delivery: DecodedDelivery) -> [String] {
        let result: String
        switch endpoint.result {
        case .async(let type): result = type?.text ?? "Void"
        case .promise(let type): result = type.text
        case .callback(_, let type, _): result = type?.text ?? "Void"
        case .stream: return []
        }
        let remark =
            " // '\(GeneratedNames.requirement(endpoint.function))' returns \(result), which must be Decodable & Sendable"
        switch (delivery, endpoint.result) {
        case (.value, _):
            return ["return try await self.__decodedValue(of: __request)" + remark]
        case (.promise, .promise(let value)) where value.hasLabelledElements:
            // A labelled tuple is the same value with names: converted on the way out.
            return [
                "let __promise: \(promiseType(value)) = self.__decodedPromise(of: __request)" + remark,
                "return __promise.then { $0 }",
            ]
        case (.promise, _):
            return ["return self.__decodedPromise(of: __request)" + remark]
        case (.callback, .callback(let parameter, _, _)):
            return ["self.__deliverDecoded(__request, to: \(parameter))" + remark]
        case (.callback, _):
            return []
        }
    }

    /// Writes the helpers for `delivery`: one per decoding overload of `request(_:)` (`T`, `T?`,
    /// `(T, Response)`), then the fallback that explains.
    static func writeDecodingHelpers(_ writer: inout SourceWriter, for delivery: DecodedDelivery) {
        writer.line("")
        writer.line("// Decode results here, so that one that is not Decodable & Sendable is one error.")
        for (index, result) in ["Value", "Value?", "(Value, Osprey.Response)"].enumerated() {
            if index == 0 { writer.line("@_disfavoredOverload") }
            let signature = delivery.signature(generics: "<Value: Decodable & Sendable>", result: result)
            writer.block("private func \(signature) {") { body in
                for line in delivery.body(result: result) { body.line(line) }
            }
        }
        writer.line("@_disfavoredOverload")
        writer.line("@available(*, unavailable, message: \(SourceWriter.literal(notDecodableMessage)))")
        writer.block("private func \(delivery.signature(generics: "<Value>", result: "Value")) {") { body in
            body.line("fatalError(\"unavailable\")")
        }
    }

    /// The fallback's message: the error for a result that is not Decodable.
    static let notDecodableMessage =
        "the result of an @API requirement must be Decodable & Sendable: make the type conform to both "
        + "(a struct of Sendable, Decodable properties), or return Data, String or Response, spelled as such, "
        + "to read the body raw"
}

extension APIGenerator.DecodedDelivery {
    /// A helper's signature, from its name on, for `result`.
    func signature(generics: String, result: String) -> String {
        switch self {
        case .value:
            "__decodedValue\(generics)(of request: Osprey.RequestBuilder) async throws -> \(result)"
        case .promise:
            "__decodedPromise\(generics)(of request: Osprey.RequestBuilder) -> Osprey.Promise<\(result)>"
        case .callback:
            "__deliverDecoded\(generics)(_ request: Osprey.RequestBuilder, "
                + "to completion: @escaping (Swift.Result<\(result), any Swift.Error>) -> Void)"
        }
    }

    /// A helper's body, for `result`: `request(_:)` picks the overload that decodes it.
    func body(result: String) -> [String] {
        switch self {
        case .value:
            [
                "let promise: Osprey.Promise<\(result)> = self._request(request)",
                "return try await promise.value",
            ]
        case .promise:
            ["self._request(request)"]
        case .callback:
            [
                "let promise: Osprey.Promise<\(result)> = self._request(request)",
                "promise._deliver(to: completion)",
            ]
        }
    }
}
