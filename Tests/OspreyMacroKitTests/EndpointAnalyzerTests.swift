import OspreyMacroKit
import Testing

@Suite("EndpointAnalyzer: roles, settings, results and mistakes")
struct EndpointAnalyzerTests {
    /// The endpoint of the only requirement of `@API protocol P { <member> }`, and diagnostics.
    private func analyze(_ member: String, protocolAttributes: String = "")
        -> (endpoint: Endpoint?, diagnostics: [MacroDiagnostic], source: [UInt8])
    {
        let source = "\(protocolAttributes)\n@API protocol P {\n    \(member)\n}"
        let (declaration, parseDiagnostics) = DeclarationParser.parseProtocol(source)
        #expect(parseDiagnostics.isEmpty, "\(parseDiagnostics)")
        guard let declaration, let function = declaration.functions.first else { return (nil, [], []) }
        let (endpoint, diagnostics) = EndpointAnalyzer.analyze(
            function, protocolAttributes: declaration.attributes)
        return (endpoint, diagnostics, Array(source.utf8))
    }

    private func roles(_ member: String) -> [ParameterRole] {
        analyze(member).endpoint?.parameters.map(\.1) ?? []
    }

    @Test(
        "parameter roles: wrappers, the path, then the method",
        arguments: [
            (
                #"@GET("/u/:id") func f(id: Int, q: String) async throws"#,
                [ParameterRole.path(key: "id"), .query(key: "q")]
            ),
            (#"@HEAD("/u") func f(q: Int) async throws"#, [.query(key: "q")]),
            (#"@DELETE("/u") func f(q: Int) async throws"#, [.query(key: "q")]),
            (#"@POST("/u") func f(name: String) async throws"#, [.field(key: "name")]),
            (
                #"@PATCH("/u/{id}") func f(id: Int, name: Field<String>) async throws"#,
                [.path(key: "id"), .field(key: "name")]
            ),
            (
                #"@POST("/u") func f(page: Query<Int>, b: Body<Todo>) async throws"#,
                [.query(key: "page"), .body]
            ),
            (
                #"@GET("/u") func f(customHeader: Header<String>) async throws"#,
                [.header(name: "Custom-Header")]
            ),
            (#"@GET("/u/:id") func f(id: Path<String>) async throws"#, [.path(key: "id")]),
            (#"@GET("/posts/:postId") func f(id postId: Int) async throws"#, [.path(key: "postId")]),
            (
                #"@Multipart @POST("/u") func f(file: Part, other: Part?) async throws"#,
                [.part(key: "file"), .part(key: "other")]
            ),
            (#"@GET("/u") func f(callback: @escaping (Result<User, Error>) -> Void)"#, [.callback]),
            (#"@Multipart @GET("/u") func f(page: Int) async throws"#, [.query(key: "page")]),
        ])
    func parameterRoles(member: String, expected: [ParameterRole]) {
        #expect(roles(member) == expected)
    }

    @Test(
        "Capital-Kebab-Case header names",
        arguments: [
            ("customHeader", "Custom-Header"), ("xAPIKey", "X-API-Key"), ("etag", "Etag"),
            ("ifNoneMatch", "If-None-Match"),
            ("x_request_id", "X-Request-Id"),
        ])
    func headerNames(parameter: String, header: String) {
        #expect(EndpointAnalyzer.capitalKebabCase(parameter) == header)
    }

    @Test("result styles")
    func resultStyles() {
        #expect(analyze(#"@GET("/") func f() async throws"#).endpoint?.result == .async(nil))
        guard case .async(let type?) = analyze(#"@GET("/") func f() async throws -> [User]"#).endpoint?.result
        else {
            Issue.record("expected async [User]")
            return
        }
        #expect(type.text == "[User]")
        guard case .promise(let value) = analyze(#"@GET("/") func f() -> Promise<Data?>"#).endpoint?.result
        else {
            Issue.record("expected a promise")
            return
        }
        #expect(value.text == "Data?")
        let callback = analyze(#"@GET("/") func f(completion: @escaping (Response) -> Void)"#).endpoint?
            .result
        #expect(callback == .callback(parameter: "completion", value: nil, isResponse: true))
    }

    @Test("settings: the protocol's first, then the function's")
    func settings() {
        let (endpoint, diagnostics, _) = analyze(
            #"@URLForm @KeyMapping(.snakeCase) @Headers(["A": "b"]) @POST("/") func f(a: Int) async throws"#,
            protocolAttributes: #"@Authorization(.bearer("t")) @JSON(encoder: .iso8601)"#)
        #expect(diagnostics.isEmpty)
        #expect(
            endpoint?.protocolSettings == [
                .authorization(#".bearer("t")"#), .json(encoder: ".iso8601", decoder: nil),
            ])
        #expect(
            endpoint?.functionSettings == [
                .urlForm(encoder: nil), .keyMapping(".snakeCase"), .headers(#"["A": "b"]"#),
            ])
    }

    @Test(
        "mistakes are errors at the exact place, with fix-its where one is obvious",
        arguments: [
            (
                #"@GET("/users/:name") func f() async throws"#,
                "the path parameter 'name' has no matching argument", ":name"
            ),
            (
                #"@GET("/users/{name}/x") func f(id: Int) async throws"#,
                "the path parameter 'name' has no matching", "{name}"
            ),
            (
                #"@GET("/u") func f(id: Path<Int>) async throws"#,
                "is a Path<T> parameter, but the path has no", "id: Path<Int>"
            ),
            (
                #"@POST("/u") func f(a: Body<A>, b: Body<B>) async throws"#, "a second Body<T> parameter",
                "b: Body<B>"
            ),
            (
                #"@POST("/u") func f(a: Body<A>, b: Field<Int>) async throws"#,
                "cannot be combined with body fields", "a: Body<A>"
            ),
            (
                #"@POST("/u") func f(a: Body<A>, b: Int) async throws"#,
                "cannot be combined with body fields such as 'b'", "a: Body<A>"
            ),
            (#"@GET("/u") func f(a: Body<A>) async throws"#, "a GET request has no body", "a: Body<A>"),
            (
                #"@Multipart @POST("/u") func f(a: String) async throws"#, "must be a Part; 'a' is String",
                "String"
            ),
            (#"@Multipart @POST("/u") func f(a: Body<A>) async throws"#, "not Body<T>", "a: Body<A>"),
            (#"@GET("/u") func f() -> User"#, "unsupported result for 'f'", "User"),
            (#"@GET("/u") func f() async -> User"#, "must be 'async throws'", "func"),
            (#"@GET("/u") func f() async throws -> Promise<User>"#, "not both", "Promise<User>"),
            (#"@GET("/u") func f() async throws(MyError) -> User"#, "typed throws is not supported", "func"),
            (#"func f() async throws"#, "needs an HTTP method attribute", "func"),
            (
                #"@GET("/a") @POST("/b") func f() async throws"#, "more than one HTTP method attribute",
                #"@POST("/b")"#
            ),
            (#"@GET(path) func f() async throws"#, "single-line string literal", "path"),
            (#"@GET("/\(x)") func f() async throws"#, "single-line string literal", #""/\(x)""#),
            (
                #"@HTTP("/u", method: "BAD METHOD") func f() async throws"#, "is not a valid HTTP method",
                #""BAD METHOD""#
            ),
            (
                #"@GET("/u") func f(a: (Int) -> Void, b: Int) async throws"#,
                "a closure parameter can only be a completion handler", "a: (Int) -> Void"
            ),
            (#"@GET("/u") static func f() async throws"#, "'static' requirements are not supported", "func"),
            (
                #"@GET("/u/:id") func f(id: UUID?) async throws"#, "the path value 'id' cannot be optional",
                "UUID?"
            ),
            (#"@GET("/u") func f(_: Int) async throws"#, "give this parameter a name", "_: Int"),
        ])
    func mistakes(member: String, message: String, place: String) {
        let (endpoint, diagnostics, source) = analyze(member)
        #expect(endpoint == nil)
        let diagnostic = diagnostics.first { $0.message.contains(message) }
        #expect(diagnostic != nil, "\(diagnostics.map(\.message))")
        if let diagnostic {
            #expect(diagnostic.severity == .error)
            #expect(String(decoding: source[diagnostic.range], as: UTF8.self) == place)
        }
    }

    @Test(
        "a result that can never be decoded is one error, at the part that cannot be, saying what to write",
        arguments: [
            (#"@GET("/u") func f() async throws -> [String: Any]"#, "Any", "Any is neither"),
            (#"@GET("/u") func f() -> Promise<[AnyObject]?>"#, "AnyObject", "AnyObject is neither"),
            (
                #"@GET("/u") func f(completion: @escaping (Result<Swift.Any, Error>) -> Void)"#, "Swift.Any",
                "Any is neither"
            ),
            (
                #"@GET("/u") func f() async throws -> Dictionary<String, [AnyHashable]>"#, "AnyHashable",
                "AnyHashable is not Decodable"
            ),
            (
                #"@GET("/u") func f() async throws -> any Decodable & Sendable"#, "any Decodable & Sendable",
                "is an existential"
            ),
            (
                #"@GET("/u") func f() async throws -> [Decodable & Sendable]"#, "Decodable & Sendable",
                "existential"
            ),
            (#"@GET("/u") func f() async throws -> () -> Void"#, "() -> Void", "a function is not Decodable"),
            (#"@GET("/u") func f() async throws -> User.Type"#, "User.Type", "a metatype is not Decodable"),
            (#"@GET("/u") func f() async throws -> (Int, Int)"#, "(Int, Int)", "a tuple is not Decodable"),
            (
                #"@GET("/u") func f() async throws -> ([String: Any], Response)"#, "Any", "Any is neither"
            ),
            (
                #"@GET("/u") func f() async throws -> [(User, Response)]"#, "(User, Response)",
                "a tuple is not Decodable"
            ),
        ])
    func undecodableResults(member: String, place: String, reason: String) {
        let (endpoint, diagnostics, source) = analyze(member)
        #expect(endpoint == nil)
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.message))")
        guard let diagnostic = diagnostics.first else { return }
        #expect(diagnostic.severity == .error)
        #expect(String(decoding: source[diagnostic.range], as: UTF8.self) == place)
        #expect(diagnostic.message.hasPrefix("'f' cannot return "), "\(diagnostic.message)")
        #expect(diagnostic.message.contains(reason), "\(diagnostic.message)")
        #expect(diagnostic.message.contains("must be Decodable & Sendable"))
        #expect(diagnostic.message.contains("declare a Decodable & Sendable type for the body"))
    }

    @Test(
        "results whose spelling may decode are left to the compiler",
        arguments: [
            "[User]", "User?", "[String: [Int]]", "(User, Response)", "(user: User, response: Response)",
            "(User?, Osprey.Response)", "Page<Any>", "Data", "Response", "Void", "()", "Set<Int>",
        ])
    func decodableResults(result: String) {
        let (endpoint, diagnostics, _) = analyze(#"@GET("/u") func f() async throws -> "# + result)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        #expect(endpoint != nil)
    }

    @Test("fix-its: the missing path parameter, the method attribute, async throws")
    func fixIts() {
        func applying(_ member: String) -> String? {
            let (_, diagnostics, source) = analyze(member)
            guard let change = diagnostics.first?.fixIts.first?.changes.first else { return nil }
            let edited =
                Array(source[..<change.range.lowerBound]) + Array(change.newText.utf8)
                + Array(source[change.range.upperBound...])
            return String(decoding: edited, as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false
            ).map(String.init)[2]
        }
        #expect(
            applying(#"@GET("/u/:id") func f(q: Int) async throws"#)
                == #"    @GET("/u/:id") func f(q: Int, id: String) async throws"#)
        #expect(
            applying(#"@GET("/u/:id") func f() async throws"#)
                == #"    @GET("/u/:id") func f(id: String) async throws"#)
        #expect(applying("func list() async throws") == #"    @GET("/list") func list() async throws"#)
        #expect(applying(#"@GET("/u") func f() -> User"#) == #"    @GET("/u") func f() async throws -> User"#)
    }
}
