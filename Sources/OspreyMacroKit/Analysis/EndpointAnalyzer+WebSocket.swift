// A WebSocket is a result of its own: the requirement opens it (`AbstractAPI`'s `_request(_:)`
// for `Promise<WebSocket>`), so it is returned whole, as `async throws -> WebSocket`, a
// `Promise<WebSocket>` or a completion handler's `Result<WebSocket, Error>`, and the opening
// handshake is a GET. Anything else would reach the generated code as a result Osprey cannot
// make, reported there with no word on what to write.

extension EndpointAnalyzer {
    /// Reports a WebSocket asked for with a method other than GET, or wrapped in another type.
    static func checkWebSocket(
        _ result: ResultStyle, method: String, methodAttribute: Attribute, of function: FunctionRequirement,
        into diagnostics: inout [MacroDiagnostic]
    ) {
        guard let value = result.value else { return }
        if isWebSocket(value) {
            if method != "GET" {
                diagnostics.append(
                    MacroDiagnostic(
                        "'\(function.baseName)' opens a WebSocket, whose opening handshake is a GET: "
                            + "declare it with @GET", at: methodAttribute.range))
            }
            return
        }
        if let socket = value.firstPart(where: isWebSocket) {
            diagnostics.append(
                MacroDiagnostic(
                    "'\(function.baseName)' cannot return \(value.withoutAttributes.text): a WebSocket is "
                        + "returned on its own, as 'WebSocket'", at: socket.range))
        }
    }

    private static func isWebSocket(_ type: TypeSyntax) -> Bool {
        type.isNamed("WebSocket", modules: ["Osprey"])
    }
}
