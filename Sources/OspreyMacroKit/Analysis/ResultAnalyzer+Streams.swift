// Streams are results of their own: the method hands the stream back at once and the request is
// sent when it is read, so any effects (`async`, `throws`, both, neither) fit, and a Promise or a
// completion handler would only wrap something that is already lazy. A stream wrapped in another
// type (an optional, an array, a pair) would otherwise reach the decoding helpers and be reported
// as "not Decodable", which sends the reader the wrong way.

extension ResultAnalyzer {
    /// The stream `type` is, spelled `ResponseStream`, `ServerSentEvents` or `DecodedEvents<T>`
    /// (or with `Osprey.` in front); nil for any other type.
    static func streamKind(of type: TypeSyntax) -> StreamKind? {
        if type.isNamed("ResponseStream", modules: ["Osprey"]) { return .response }
        if type.isNamed("ServerSentEvents", modules: ["Osprey"]) { return .events }
        return type.argument(ofGeneric: "DecodedEvents", modules: ["Osprey"]).map(StreamKind.decodedEvents)
    }

    /// The diagnostic for a stream asked for in a form that does not apply to streams (inside a
    /// Promise, through a completion handler, wrapped in another type), and the index of the
    /// completion handler, which is then no parameter of the request; nil when there is none.
    static func misplacedStream(in function: FunctionRequirement) -> (MacroDiagnostic, Int?)? {
        let returnType = function.returnType.flatMap { $0.isVoid ? nil : $0 }
        if let returnType,
            let value = returnType.argument(ofGeneric: "Promise", modules: ["Promises", "Osprey"]),
            streamKind(of: value) != nil
        {
            let stream = value.withoutAttributes.text
            return (
                MacroDiagnostic(
                    "'\(function.baseName)' cannot return a Promise of a stream: return \(stream) itself "
                        + "(nothing is sent until it is read)",
                    at: returnType.range,
                    fixIts: [
                        .init(
                            "return \(stream)", changes: [.init(range: returnType.range, newText: stream)])
                    ]),
                nil
            )
        }
        if let last = function.parameters.last, let callback = callback(last.type),
            let value = callback.value,
            let stream = firstStream(in: value)
        {
            return (
                MacroDiagnostic(
                    "'\(function.baseName)' cannot deliver a stream to a completion handler: return "
                        + "\(stream.withoutAttributes.text) instead (nothing is sent until it is read)",
                    at: last.type.range),
                function.parameters.count - 1
            )
        }
        if let returnType, let stream = firstStream(in: returnType) {
            return (
                MacroDiagnostic(
                    "'\(function.baseName)' cannot return \(returnType.withoutAttributes.text): a stream is "
                        + "returned on its own, as '-> \(stream.withoutAttributes.text)'",
                    at: stream.range),
                nil
            )
        }
        return nil
    }

    /// The first stream written anywhere in `type`.
    private static func firstStream(in type: TypeSyntax) -> TypeSyntax? {
        type.firstPart { streamKind(of: $0) != nil }
    }
}
