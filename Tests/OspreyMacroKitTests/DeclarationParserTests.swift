import OspreyMacroKit
import Testing

@Suite("DeclarationParser: protocols, requirements, attributes")
struct DeclarationParserTests {
    private func parse(_ source: String) throws -> ProtocolDeclaration {
        let (declaration, diagnostics) = DeclarationParser.parseProtocol(source)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        return try #require(declaration)
    }

    @Test("a protocol's attributes, access level, name and requirements")
    func protocolShape() throws {
        let declaration = try parse(
            """
            /// Users.
            @API
            @Headers(["X-Client-Version": "1.2.3"])
            public protocol Users: Sendable where Self: AnyObject {
                @GET("/user")
                func getUser() async throws -> User

                @POST("/user") func createUser(email: String, password: String) async throws -> User;
            }
            """)
        #expect(declaration.name == "Users")
        #expect(declaration.inheritedTypes.map(\.text) == ["Sendable"])
        #expect(declaration.accessLevel == "public")
        #expect(declaration.attributes.map(\.name) == ["API", "Headers"])
        #expect(declaration.attributes[1].arguments?.first?.expression == #"["X-Client-Version": "1.2.3"]"#)
        #expect(declaration.functions.map(\.baseName) == ["getUser", "createUser"])
        #expect(declaration.functions[1].attributes.map(\.name) == ["POST"])
        #expect(declaration.functions[1].parameters.map(\.name) == ["email", "password"])
    }

    @Test("attribute arguments: labels, nested calls, trailing commas, comments inside, raw strings with ')'")
    func attributeArguments() throws {
        let declaration = try parse(
            """
            @API protocol P {
                @HTTP(/* the path */ #"/a)b"#, method: "PURGE" /* custom */)
                @Authorization(.basic(username: "u", password: "p,)"))
                @JSON(encoder: .iso8601, decoder: JSONDecoder())
                @Osprey.Headers(["A": "b", "C": "d",])
                func f() async throws
            }
            """)
        let attributes = declaration.functions[0].attributes
        #expect(attributes.map(\.name) == ["HTTP", "Authorization", "JSON", "Headers"])
        #expect(attributes[0].argument(nil)?.expression == ##"#"/a)b"#"##)
        #expect(attributes[0].argument("method")?.expression == #""PURGE""#)
        #expect(attributes[1].arguments?.count == 1)
        #expect(attributes[1].argument(nil)?.expression == #".basic(username: "u", password: "p,)")"#)
        #expect(attributes[2].argument("encoder")?.expression == ".iso8601")
        #expect(attributes[2].argument("decoder")?.expression == "JSONDecoder()")
        #expect(attributes[3].argument(nil)?.expression == #"["A": "b", "C": "d",]"#)
    }

    @Test("signatures: labels, generics, where clauses, effects, backticked names, every kind of type")
    func signatures() throws {
        let declaration = try parse(
            """
            @API protocol P {
                @GET("/a")
                func `default`<T: Decodable & Sendable>(id postId: Int, _ tags: [String]?, `in`: [String: Int]) async throws -> (T, Response) where T: Equatable
                @GET("/b") func b(callback: @escaping @Sendable (Result<Void, any Error>) -> Void)
                @GET("/c") func c(value: some Encodable & Sendable, pair: (a: Int, b: String)) -> Promise<Data?>
                @GET("/d") func d() async throws(any Error) -> [[String: [Int]]]
            }
            """)
        let a = declaration.functions[0]
        #expect(a.name == "`default`")
        #expect(a.baseName == "default")
        #expect(a.genericClause == "<T: Decodable & Sendable>")
        #expect(a.whereClause == "where T: Equatable")
        #expect(a.isAsync && a.throwsClause == "throws")
        #expect(a.parameters.map(\.label) == ["id", "_", "`in`"])
        #expect(a.parameters.map(\.key) == ["postId", "tags", "in"])
        #expect(a.parameters[1].type.optionalWrapped?.text == "[String]")
        guard case .tuple(let elements) = a.returnType?.shape else {
            Issue.record("expected a tuple, got \(String(describing: a.returnType))")
            return
        }
        #expect(elements.map(\.type.text) == ["T", "Response"])
        #expect(a.signature.hasPrefix("func `default`<T"))
        #expect(a.signature.hasSuffix("where T: Equatable"))

        let b = declaration.functions[1]
        guard case .function(let parameters, _, _, let result) = b.parameters[0].type.withoutAttributes.shape
        else {
            Issue.record("expected a function type")
            return
        }
        #expect(parameters.map(\.type.text) == ["Result<Void, any Error>"])
        #expect(result.isVoid)

        let c = declaration.functions[2]
        #expect(c.returnType?.argument(ofGeneric: "Promise", modules: ["Promises"])?.text == "Data?")
        #expect(c.parameters[0].type.text == "some Encodable & Sendable")
        #expect(declaration.functions[3].throwsClause == "throws(any Error)")
    }

    @Test("#if blocks keep their clauses and members")
    func conditionalMembers() throws {
        let declaration = try parse(
            """
            @API protocol P {
                #if os(Linux)
                @GET("/linux") func linux() async throws
                #elseif DEBUG && !os(Windows)
                @GET("/debug") func debug() async throws
                #else
                #if canImport(Foundation)
                @GET("/nested") func nested() async throws
                #endif
                #endif
                @GET("/always") func always() async throws
            }
            """)
        #expect(declaration.functions.map(\.baseName) == ["linux", "debug", "nested", "always"])
        guard case .conditional(let clauses) = declaration.members[0] else {
            Issue.record("expected an #if block")
            return
        }
        #expect(clauses.map(\.directive) == ["#if os(Linux)", "#elseif DEBUG && !os(Windows)", "#else"])
    }

    @Test(
        "what is not a function requirement is reported where it is",
        arguments: [
            ("@API protocol P { var x: Int { get } }", "'var' requirements are not supported", "var"),
            ("@API protocol P { associatedtype T }", "'associatedtype' requirements", "associatedtype"),
            ("@API struct P {}", "can only be attached to a protocol", "struct"),
            ("@API protocol P { @GET(\"/\") func f() async throws { } }", "has no body", "{"),
            ("@API protocol P { #if X\n func f() }", "'#if' without '#endif'", "#if"),
            (
                "@API protocol P {\n @GET(\"/a\")\n #if DEBUG\n @Headers([:])\n #endif\n func a() async throws\n}",
                "'#if' between a requirement's attributes is not supported", "#if"
            ),
            (
                "@API protocol P {\n @GET(\"/a\") func a() async throws\n var b: Int { get }\n}",
                "'var' requirements are not supported", "var"
            ),
        ])
    func unsupportedMembers(source: String, message: String, at token: String) {
        let (_, diagnostics) = DeclarationParser.parseProtocol(source)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let diagnostic = diagnostics.first { $0.message.contains(message) }
        #expect(diagnostic != nil, "\(diagnostics)")
        let bytes = Array(source.utf8)
        if let diagnostic {
            #expect(String(decoding: bytes[diagnostic.range], as: UTF8.self) == token)
        }
    }
}
