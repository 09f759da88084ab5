import Foundation
import OspreyMacroKit
import Testing

/// Requirements that return a `WebSocket`: what `@API` writes for them, and the forms refused.
@Suite("WebSocket results: the client's methods and the forms refused")
struct WebSocketResultTests {
    private func expand(_ source: String) -> MacroExpander.Expansion {
        MacroExpander.expand(.init(macro: "APIMacro", role: "peer", attribute: "@API", declaration: source))
    }

    @Test(
        "a WebSocket is opened by request(_:) itself, in every result style",
        arguments: [
            (
                "async throws -> WebSocket",
                [
                    "let __promise: Osprey.Promise<WebSocket> = self._request(__request)",
                    "return try await __promise.value",
                ]
            ),
            (
                "-> Osprey.Promise<Osprey.WebSocket>",
                [
                    "let __promise: Osprey.Promise<Osprey.WebSocket> = self._request(__request)",
                    "return __promise",
                ]
            ),
        ])
    func generated(signature: String, body: [String]) throws {
        let expansion = expand(
            "@API protocol P {\n    @GET(\"/rooms/:room\") func join(room: String) \(signature)\n}")
        #expect(expansion.diagnostics.isEmpty, "\(expansion.diagnostics.map(\.message))")
        let source = try #require(expansion.source)
        let lines = generatedMember(named: "join", in: source).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(Array(lines.suffix(body.count + 1).dropLast()) == body, "\(source)")
        // Nothing is decoded: a WebSocket is not a body.
        #expect(!source.contains("__decoded"), "\(source)")
    }

    @Test("a completion handler gets the socket from request(_:) too")
    func callback() throws {
        let expansion = expand(
            "@API protocol P {\n    @GET(\"/r\") func join(completion: @escaping (Result<WebSocket, Error>) -> Void)\n}"
        )
        #expect(expansion.diagnostics.isEmpty, "\(expansion.diagnostics.map(\.message))")
        let source = try #require(expansion.source)
        #expect(
            source.contains("let __promise: Osprey.Promise<WebSocket> = self._request(__request)"),
            "\(source)")
        #expect(!source.contains("__decoded"), "\(source)")
    }

    @Test(
        "a WebSocket opened with another method, or wrapped in another type, is one error at its place",
        arguments: [
            (
                #"@POST("/r") func f() async throws -> WebSocket"#, #"@POST("/r")"#,
                "opens a WebSocket, whose opening handshake is a GET: declare it with @GET"
            ),
            (
                #"@GET("/r") func f() async throws -> WebSocket?"#, "WebSocket",
                "cannot return WebSocket?: a WebSocket is returned on its own, as 'WebSocket'"
            ),
            (
                #"@GET("/r") func f() -> Promise<(WebSocket, Response)>"#, "WebSocket",
                "cannot return (WebSocket, Response): a WebSocket is returned on its own"
            ),
        ])
    func refused(member: String, place: String, message: String) throws {
        let source = "@API protocol P {\n    \(member)\n}"
        let (declaration, _) = DeclarationParser.parseProtocol(source)
        let function = try #require(declaration?.functions.first)
        let (_, diagnostics) = EndpointAnalyzer.analyze(function, protocolAttributes: [])
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.message))")
        guard let diagnostic = diagnostics.first else { return }
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message.hasPrefix("'f' " + message), "\(diagnostic.message)")
        #expect(String(decoding: Array(source.utf8)[diagnostic.range], as: UTF8.self) == place)
        #expect(expand(source).source == nil)
    }
}
