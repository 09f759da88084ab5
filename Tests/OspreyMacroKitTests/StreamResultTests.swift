import OspreyMacroKit
import Testing

/// Requirements that return `ResponseStream`, `ServerSentEvents` or `DecodedEvents<T>`: how they
/// are analysed, what `@API` and `@Mock` write for them, and the forms that are refused.
@Suite("Stream results: analysis, the client's methods and the mock's")
struct StreamResultTests {
    /// The stream types as a requirement may spell them, each with the method that makes it and
    /// the result style it must be analysed as.
    static let streams: [(type: String, method: String)] = [
        ("ResponseStream", "stream"), ("Osprey.ResponseStream", "stream"),
        ("ServerSentEvents", "events"), ("Osprey.ServerSentEvents", "events"),
        ("DecodedEvents<Token>", "decodedEvents"), ("Osprey.DecodedEvents<[Token]?>", "decodedEvents"),
    ]

    /// Every effect form a stream requirement may have.
    static let effects = ["", " async", " throws", " async throws"]

    private func expand(_ macro: String, _ source: String) -> MacroExpander.Expansion {
        MacroExpander.expand(.init(macro: macro, role: "peer", attribute: "@API", declaration: source))
    }

    /// The endpoint of the only requirement of `@API protocol P { <member> }`, and diagnostics.
    private func analyze(_ member: String) -> (
        endpoint: Endpoint?, diagnostics: [MacroDiagnostic], source: [UInt8]
    ) {
        let source = "@API protocol P {\n    \(member)\n}"
        let (declaration, parseDiagnostics) = DeclarationParser.parseProtocol(source)
        #expect(parseDiagnostics.isEmpty, "\(parseDiagnostics)")
        guard let declaration, let function = declaration.functions.first else { return (nil, [], []) }
        let (endpoint, diagnostics) = EndpointAnalyzer.analyze(
            function, protocolAttributes: declaration.attributes)
        return (endpoint, diagnostics, Array(source.utf8))
    }

    @Test("a stream result is a stream requirement, whatever its effects", arguments: streams, effects)
    func analysed(stream: (type: String, method: String), effects: String) throws {
        let (endpoint, diagnostics, _) = analyze(
            #"@GET("/feed") func feed()"# + effects + " -> " + stream.type)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        let result = try #require(endpoint?.result)
        switch (result, stream.method) {
        case (.stream(.response), "stream"), (.stream(.events), "events"): break
        case (.stream(.decodedEvents(let value)), "decodedEvents"):
            #expect(["Token", "[Token]?"].contains(value.text))
        default: Issue.record("\(stream.type) was analysed as \(result)")
        }
    }

    @Test(
        "@API builds the request as for any requirement, then returns the stream", arguments: streams, effects
    )
    func apiMethod(stream: (type: String, method: String), effects: String) throws {
        let expansion = expand(
            "APIMacro",
            """
            @API @Authorization(.bearer("t")) protocol P {
                @KeyMapping(.snakeCase) @POST("/feed/:id") func feed(id: Int, prompt: Body<Prompt>, page: Query<Int>)\(effects) -> \(stream.type)
            }
            """)
        #expect(expansion.diagnostics.isEmpty, "\(expansion.diagnostics.map(\.message))")
        let source = try #require(expansion.source)
        let expected = """
                func feed(id: Int, prompt: Body<Prompt>, page: Query<Int>)\(effects) -> \(stream.type) {
                    var __request = self.provider.makeRequest(method: "POST", path: "/feed/:id")
                    __request.addAuthorization(.bearer("t"))
                    __request.keyMapping = .snakeCase
                    __request.responseDecoder = Osprey.JSONParser(keyMapping: .snakeCase).decoder
                    __request.addParameter("id", value: `id`)
                    __request.setBody(`prompt`)
                    __request.addQuery("page", value: `page`)
                    return self._\(stream.method)(__request)
                }
            """
        #expect(generatedMember(named: "feed", in: source).joined(separator: "\n") == expected, "\(source)")
        // Nothing is decoded through the helpers: the stream's own type says what it reads.
        #expect(!source.contains("__decoded"), "\(source)")
    }

    @Test(
        "a throwing stream requirement of a mock throws MockError.notMocked without a handler",
        arguments: streams)
    func throwingMock(stream: (type: String, method: String)) throws {
        for (effects, call) in [
            (" throws", "return try __handler(`id`)"), (" async throws", "return try await __handler(`id`)"),
        ] {
            let source = try #require(
                expand(
                    "MockMacro",
                    "@Mock protocol P { @GET(\"/f\") func feed(id: Int)\(effects) -> \(stream.type) }"
                )
                .source)
            let expected = """
                    func feed(id: Int)\(effects) -> \(stream.type) {
                        let __handler: (Int)\(effects) -> \(stream.type) = try self.mocks.handler(for: "feed(id:)")
                        \(call)
                    }
                """
            #expect(
                generatedMember(named: "feed", in: source).joined(separator: "\n") == expected, "\(source)")
            #expect(
                source.contains(
                    "    func mockFeed(_ handler: @escaping (Int)\(effects) -> \(stream.type)) {"),
                "\(source)")
        }
    }

    @Test(
        "a stream requirement of a mock that cannot throw fails without a handler, as it can",
        arguments: streams)
    func nonThrowingMock(stream: (type: String, method: String)) throws {
        let maker =
            switch stream.method {
            case "stream": "Osprey.ResponseStream.scripted"
            case "events": "Osprey.ServerSentEvents.scripted"
            default: ".scripted"
            }
        let unmocked = "return \(maker)([], error: Osprey.MockError.notMocked(\"feed(id:)\"))"
        for (effects, call) in [("", "return __handler(`id`)"), (" async", "return await __handler(`id`)")] {
            let source = try #require(
                expand(
                    "MockMacro",
                    "@Mock protocol P { @GET(\"/f\") func feed(id: Int)\(effects) -> \(stream.type) }"
                )
                .source)
            let expected = """
                    func feed(id: Int)\(effects) -> \(stream.type) {
                        guard let __handler = try? self.mocks.handler(for: "feed(id:)", as: ((Int)\(effects) -> \(stream.type)).self) else {
                            \(unmocked)
                        }
                        \(call)
                    }
                """
            #expect(
                generatedMember(named: "feed", in: source).joined(separator: "\n") == expected, "\(source)")
            #expect(
                source.contains(
                    "    func mockFeed(_ handler: @escaping (Int)\(effects) -> \(stream.type)) {"),
                "\(source)")
        }
    }

    @Test(
        "a stream in a Promise, a completion handler or another type is one error at its place",
        arguments: [
            (
                #"@GET("/u") func f() -> Promise<ResponseStream>"#, "Promise<ResponseStream>",
                "cannot return a Promise of a stream: return ResponseStream itself"
            ),
            (
                #"@GET("/u") func f() async throws -> Osprey.Promise<Osprey.ServerSentEvents>"#,
                "Osprey.Promise<Osprey.ServerSentEvents>",
                "cannot return a Promise of a stream: return Osprey.ServerSentEvents itself"
            ),
            (
                #"@GET("/u") func f() -> Promises.Promise<DecodedEvents<Token>>"#,
                "Promises.Promise<DecodedEvents<Token>>",
                "cannot return a Promise of a stream: return DecodedEvents<Token> itself"
            ),
            (
                #"@GET("/u") func f(completion: @escaping (Result<ServerSentEvents, Error>) -> Void)"#,
                "@escaping (Result<ServerSentEvents, Error>) -> Void",
                "cannot deliver a stream to a completion handler: return ServerSentEvents instead"
            ),
            (
                #"@GET("/u") func f(id: Int, done: @escaping (Result<DecodedEvents<Token>, any Error>) -> Void) async throws"#,
                "@escaping (Result<DecodedEvents<Token>, any Error>) -> Void",
                "cannot deliver a stream to a completion handler: return DecodedEvents<Token> instead"
            ),
            (
                #"@GET("/u") func f() async throws -> ResponseStream?"#, "ResponseStream",
                "cannot return ResponseStream?: a stream is returned on its own, as '-> ResponseStream'"
            ),
            (
                #"@GET("/u") func f() async throws -> (ServerSentEvents, Response)"#, "ServerSentEvents",
                "cannot return (ServerSentEvents, Response): a stream is returned on its own"
            ),
            (
                #"@GET("/u") func f() -> Promise<[DecodedEvents<Token>]>"#, "DecodedEvents<Token>",
                "cannot return Promise<[DecodedEvents<Token>]>: a stream is returned on its own"
            ),
        ])
    func refusedForms(member: String, place: String, message: String) {
        let (endpoint, diagnostics, source) = analyze(member)
        #expect(endpoint == nil)
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.message))")
        guard let diagnostic = diagnostics.first else { return }
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message.hasPrefix("'f' " + message), "\(diagnostic.message)")
        #expect(String(decoding: source[diagnostic.range], as: UTF8.self) == place)
        // @Mock alone reports the same mistake, and writes nothing.
        let mock = expand("MockMacro", "@Mock protocol P {\n    \(member)\n}")
        #expect(mock.source == nil)
        #expect(mock.diagnostics.map(\.message) == [diagnostic.message])
    }

    @Test("the fix-it for a Promise of a stream returns the stream itself")
    func promiseFixIt() throws {
        let (_, diagnostics, source) = analyze(
            #"@GET("/u") func f() async throws -> Promise<ServerSentEvents>"#)
        let change = try #require(diagnostics.first?.fixIts.first?.changes.first)
        let edited =
            Array(source[..<change.range.lowerBound]) + Array(change.newText.utf8)
            + Array(source[change.range.upperBound...])
        #expect(
            String(decoding: edited, as: UTF8.self).contains(
                #"@GET("/u") func f() async throws -> ServerSentEvents"#))
    }

    @Test("a function's decoder decodes its events; stream and other requirements share one class")
    func mixed() throws {
        let source = try #require(
            expand(
                "APIMacro",
                """
                @API protocol P {
                    @JSON(decoder: .custom) @GET("/t") func tokens() -> DecodedEvents<Token>
                    @GET("/u") func user() async throws -> User
                }
                """
            ).source)
        let expected = """
                func tokens() -> DecodedEvents<Token> {
                    var __request = self.provider.makeRequest(method: "GET", path: "/t")
                    __request.bodyEncoding = .json
                    __request.responseDecoder = .custom
                    return self._decodedEvents(__request)
                }
            """
        #expect(generatedMember(named: "tokens", in: source).joined(separator: "\n") == expected, "\(source)")
        #expect(source.contains("return try await self.__decodedValue(of: __request)"), "\(source)")
    }
}
