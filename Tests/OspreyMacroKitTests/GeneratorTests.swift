import Foundation
import OspreyMacroKit
import Testing

@Suite("APIGenerator and MockGenerator: the code they write")
struct GeneratorTests {
    private func expand(_ macro: String, _ source: String) -> MacroExpander.Expansion {
        MacroExpander.expand(.init(macro: macro, role: "peer", attribute: "@API", declaration: source))
    }

    @Test("a method builds its request from the protocol's attributes, then its own, then its arguments")
    func apiMethod() throws {
        let expansion = expand(
            "APIMacro",
            """
            @API
            @Authorization(.bearer("t"))
            @KeyMapping(.snakeCase)
            protocol Todos {
                @URLForm
                @Headers(["Cache-Control": "no-cache"])
                @PATCH("/todo/:id")
                func updateTodo(id: Int, name: String, customHeader: Header<String>, page: Query<Int?>) async throws -> Todo
            }
            """)
        #expect(expansion.diagnostics.isEmpty)
        let source = try #require(expansion.source)
        let expected = """
                func updateTodo(id: Int, name: String, customHeader: Header<String>, page: Query<Int?>) async throws -> Todo {
                    var __request = self.provider.makeRequest(method: "PATCH", path: "/todo/:id")
                    __request.addAuthorization(.bearer("t"))
                    __request.keyMapping = .snakeCase
                    __request.bodyEncoding = .urlForm
                    __request.addHeaders(["Cache-Control": "no-cache"])
                    __request.addParameter("id", value: `id`)
                    __request.addField("name", value: `name`)
                    __request.addHeader("Custom-Header", value: `customHeader`)
                    __request.addQuery("page", value: `page`)
                    return try await self.__decodedValue(of: __request) // 'updateTodo(id:name:customHeader:page:)' returns Todo, which must be Decodable & Sendable
                }
            """
        #expect(source.contains(expected), "\(source)")
        #expect(source.contains("final class TodosAPI: Osprey.AbstractAPI, Todos, @unchecked Sendable {"))
        // The protocol's key mapping also sets up the default parser.
        #expect(source.contains("responseParser ?? Osprey.JSONParser(keyMapping: .snakeCase)"))
    }

    @Test("a function's key mapping and decoder decode its responses; a decoder given after a mapping wins")
    func functionDecoding() throws {
        let source = try #require(
            expand(
                "APIMacro",
                """
                @API protocol P {
                    @JSON(decoder: .custom) @KeyMapping(.snakeCase) @GET("/") func f() async throws -> Int
                }
                """
            ).source)
        let lines = source.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }
        let mapping = try #require(
            lines.firstIndex {
                $0 == "__request.responseDecoder = Osprey.JSONParser(keyMapping: .snakeCase).decoder"
            })
        let decoder = try #require(lines.firstIndex { $0 == "__request.responseDecoder = .custom" })
        #expect(mapping < decoder)
    }

    @Test("access levels follow the protocol's")
    func accessLevels() throws {
        for (level, type, member) in [
            ("public ", "public ", "public "), ("", "", ""), ("fileprivate ", "fileprivate ", ""),
        ] {
            let source = try #require(
                expand("APIMacro", "@API \(level)protocol P { @GET(\"/\") func f() async throws }").source)
            #expect(source.contains("\n\(type)final class PAPI"), "\(source)")
            #expect(source.contains("\n    \(member)func f() async throws {"), "\(source)")
            #expect(source.contains("\n    \(member)init(provider: Osprey.Provider"), "\(source)")
        }
    }

    @Test("other attributes and nonisolated are copied onto the generated members; names are backticked")
    func copiedAttributes() throws {
        let source = #"""
            @API @Mock protocol P {
                @available(macOS 12, *) @MainActor
                @GET("/s") nonisolated func search(for: String) async throws -> [String]
            }
            """#
        for macro in ["APIMacro", "MockMacro"] {
            let expansion = try #require(expand(macro, source).source)
            #expect(
                expansion.contains("@available(macOS 12, *) @MainActor nonisolated func search(for: String)"),
                "\(expansion)")
            #expect(!expansion.contains("@GET"))
            #expect(expansion.contains("`for`"))
        }
    }

    @Test("with @API and @Mock on one protocol, a mistake is reported once")
    func reportedOnce() {
        let source = #"@API @Mock protocol P { @GET("/u") func f() -> Int }"#
        #expect(expand("APIMacro", source).diagnostics.count == 1)
        let mock = expand("MockMacro", source)
        #expect(mock.diagnostics.isEmpty)
        #expect(mock.source == "")
    }

    @Test("#if blocks are kept around the members they hold")
    func conditionals() throws {
        let source = try #require(
            expand(
                "APIMacro",
                """
                @API protocol P {
                    #if os(Linux)
                    @GET("/a") func a() async throws
                    #else
                    @GET("/b") func b() async throws
                    #endif
                }
                """
            ).source)
        let a = try #require(source.range(of: "func a()"))
        let b = try #require(source.range(of: "func b()"))
        let ifLine = try #require(source.range(of: "\n#if os(Linux)\n"))
        let elseLine = try #require(source.range(of: "\n#else\n"))
        let endLine = try #require(source.range(of: "\n#endif\n"))
        #expect(ifLine.upperBound < a.lowerBound && a.upperBound < elseLine.lowerBound)
        #expect(elseLine.upperBound < b.lowerBound && b.upperBound < endLine.lowerBound)
    }

    @Test("a mock has a handler lookup per requirement and a mock… setter, generics kept")
    func mock() throws {
        let source = try #require(
            expand(
                "MockMacro",
                """
                @Mock protocol GitHub {
                    @GET("/users/:username/repos")
                    func getRepositories(username: String) async throws -> [Repository]
                    @GET("/things/:id")
                    func thing<T: Decodable & Sendable>(id: Path<Int>) -> Promise<T> where T: Equatable
                    @GET("/user")
                    func getUser(callback: @escaping (Result<User, Error>) -> Void)
                }
                """
            ).source)
        #expect(source.contains("final class GitHubMock: GitHub, @unchecked Sendable {"))
        #expect(
            source.contains(
                #"let __handler: (String) async throws -> [Repository] = try self.mocks.handler(for: "getRepositories(username:)")"#
            ))
        #expect(
            source.contains(
                "func mockGetRepositories(_ handler: @escaping (String) async throws -> [Repository]) {"))
        #expect(
            source.contains(
                "func mockThing<T: Decodable & Sendable>(_ handler: @escaping (Path<Int>) async throws -> T) where T: Equatable {"
            ))
        #expect(source.contains("return self.mocks.promise {"))
        #expect(source.contains("self.mocks.deliver(to: callback) {"))
        #expect(source.contains("func mockGetUser(_ handler: @escaping () async throws -> User) {"))
    }

    @Test(
        "decoded results come through one helper per delivery, with a fallback that explains; raw ones do not"
    )
    func decodedResults() throws {
        let source = try #require(
            expand(
                "APIMacro",
                """
                @API protocol P {
                    @GET("/a") func a() async throws -> User
                    @GET("/b") func b() async throws -> [User]?
                    @GET("/c") func c() -> Promise<(user: User, response: Response)>
                    @GET("/d") func d(done: @escaping (Result<User, Error>) -> Void)
                    @GET("/e") func e() async throws -> Data?
                    @GET("/f") func f() async throws -> (String, Osprey.Response)
                    @GET("/g") func g(done: @escaping (Response) -> Void)
                }
                """
            ).source)
        let lines = source.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }
        let remark = "which must be Decodable & Sendable"
        #expect(
            lines.contains(
                "return try await self.__decodedValue(of: __request) // 'a()' returns User, \(remark)"))
        #expect(
            lines.contains(
                "return try await self.__decodedValue(of: __request) // 'b()' returns [User]?, \(remark)"))
        #expect(
            lines.contains(
                "let __promise: Osprey.Promise<(User, Response)> = self.__decodedPromise(of: __request) "
                    + "// 'c()' returns (user: User, response: Response), \(remark)"))
        #expect(lines.contains("return __promise.then { $0 }"))
        #expect(
            lines.contains("self.__deliverDecoded(__request, to: done) // 'd(done:)' returns User, \(remark)")
        )
        #expect(lines.contains("let __promise: Osprey.Promise<Data?> = self._request(__request)"))
        #expect(
            lines.contains(
                "let __promise: Osprey.Promise<(String, Osprey.Response)> = self._request(__request)"))
        #expect(lines.contains("let __promise: Osprey.Promise<Osprey.Response> = self._request(__request)"))
        for helper in ["__decodedValue", "__decodedPromise", "__deliverDecoded"] {
            let overloads = lines.filter {
                $0.hasPrefix("private func \(helper)<Value: Decodable & Sendable>(")
            }
            #expect(overloads.count == 3, "\(helper): \(overloads)")
            #expect(lines.contains { $0.hasPrefix("private func \(helper)<Value>(") })
        }
        #expect(
            lines.contains("let promise: Osprey.Promise<(Value, Osprey.Response)> = self._request(request)"))
        let fallbacks = lines.filter {
            $0.hasPrefix(
                #"@available(*, unavailable, message: "the result of an @API requirement must be Decodable & Sendable"#
            )
        }
        #expect(fallbacks.count == 3)
        #expect(lines.filter { $0 == "@_disfavoredOverload" }.count == 6)
    }

    @Test("no decoding helpers when no result is decoded")
    func noDecodingHelpers() throws {
        let source = try #require(
            expand(
                "APIMacro",
                #"@API protocol P { @GET("/a") func a() async throws; @GET("/b") func b() async throws -> String }"#
            ).source)
        #expect(!source.contains("__decoded"), "\(source)")
    }

    @Test("a mock's handler takes an existential where a parameter is opaque, wrapped or not")
    func mockOpaqueParameters() throws {
        let source = try #require(
            expand(
                "MockMacro",
                """
                @Mock protocol P {
                    @POST("/a") func a(body: Body<some Encodable & Sendable>, tags: [some StringProtocol]?, id: Int) async throws
                }
                """
            ).source)
        #expect(
            source.contains(
                "func mockA(_ handler: @escaping (Body<any Encodable & Sendable>, [any StringProtocol]?, Int) "
                    + "async throws -> Void) {"),
            "\(source)")
        #expect(!source.contains("(Body<some"), "\(source)")
    }

    @Test("errors mean no expansion; annotations expand to nothing; unknown macros are refused")
    func expansionOutcomes() {
        let broken = expand("APIMacro", #"@API protocol P { @GET("/:id") func f() async throws }"#)
        #expect(broken.source == nil)
        #expect(broken.diagnostics.count == 1)
        let annotation = MacroExpander.expand(
            .init(macro: "AnnotationMacro", role: "peer", attribute: "@GET(\"/\")", declaration: "func f()"))
        #expect(annotation.source == "")
        #expect(annotation.diagnostics.isEmpty)
        #expect(expand("OtherMacro", "@API protocol P {}").source == nil)
    }
}
