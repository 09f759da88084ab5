import Foundation
import OspreyTestSupport
import OspreyTesting
import Testing

#if os(Linux)
    /// The macro plugin as the compiler runs it: diagnostics of bad declarations at their exact
    /// line and column, and the frame protocol itself. Uses the modules and the plugin built
    /// beside the test bundle.
    @Suite("The macro plugin, through the compiler and on its own", .onItsOwnThread)
    struct PluginTests {
        static let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        static let plugin = buildFolder.appendingPathComponent("OspreyMacros-tool")

        /// Typechecks `source` with Osprey's modules and plugin; the compiler's output.
        static func typecheck(_ source: String) async throws -> (status: Int32, output: String, file: String)
        {
            try await Blocking.run { try typecheckBlocking(source) }
        }

        static func typecheckBlocking(_ source: String) throws -> (
            status: Int32, output: String, file: String
        ) {
            let modules = buildFolder.appendingPathComponent("Modules")
            try #require(FileManager.default.fileExists(atPath: plugin.path))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "api-\(UUID().uuidString).swift")
            defer { try? FileManager.default.removeItem(at: file) }
            try source.write(to: file, atomically: true, encoding: .utf8)
            let (status, output) = try ChildProcess.run(
                "/usr/bin/env",
                [
                    "swiftc", "-typecheck", "-swift-version", "6", "-diagnostic-style", "llvm", "-I",
                    modules.path,
                    // Osprey's module needs the module maps of its C targets (CCurl, CPublicSuffix, CZlib) on Linux.
                    "-I", buildFolder.appendingPathComponent("CCurl.build").path,
                    "-I", buildFolder.appendingPathComponent("CPublicSuffix.build").path,
                    "-I", buildFolder.appendingPathComponent("CZlib.build").path,
                    "-load-plugin-executable", plugin.path + "#OspreyMacros", file.path,
                ])
            return (status, output, file.path)
        }

        /// Compiles `@API protocol P { member }` (the member on line 4), which must fail: the
        /// error line at `column` of line 4, if any, and all the output.
        static func error(compiling member: String, column: Int) async throws -> (
            line: Substring?, output: String
        ) {
            let result = try await typecheck("import Osprey\n@API\nprotocol P {\n\(member)\n}\n")
            #expect(result.status != 0)
            let line = result.output.split(separator: "\n").first {
                $0.hasPrefix("\(result.file):4:\(column): error: ")
            }
            return (line, result.output)
        }

        @Test("a good declaration typechecks, even beside types named like Osprey's")
        func good() async throws {
            let result = try await Self.typecheck(
                """
                import Osprey
                struct Provider {}
                struct Response {}
                struct Promise {}
                struct JSONParser {}
                struct User: Decodable, Sendable {}
                @API @Mock
                protocol Users {
                    @GET("/users/:id") func user(id: Int) async throws -> User
                }
                """)
            #expect(result.status == 0, "\(result.output)")
        }

        @Test(
            "mistakes are compiler errors at the right line and column",
            arguments: [
                (
                    #"    @GET("/users/:name") func f() async throws"#,
                    "the path parameter 'name' has no matching argument", 18
                ),
                (
                    #"    @POST("/u") func f(a: Body<Int>, b: Body<Int>) async throws"#,
                    "a second Body<T> parameter", 38
                ),
                (
                    #"    @POST("/u") func f(a: Body<Int>, b: Field<Int>) async throws"#,
                    "cannot be combined with body fields", 24
                ),
                (#"    @Multipart @POST("/u") func f(a: String) async throws"#, "must be a Part", 38),
                (#"    @GET("/u") func f() -> Int"#, "unsupported result for 'f'", 28),
                (#"    var name: String { get }"#, "'var' requirements are not supported", 5),
            ])
        func diagnostics(member: String, message: String, column: Int) async throws {
            let (line, output) = try await Self.error(compiling: member, column: column)
            #expect(line?.contains(message) == true, "\(output)")
            #expect(line?.hasSuffix("(from macro 'API')") == true, "\(output)")
        }

        @Test(
            "unknown or missing attribute arguments are errors at the attribute",
            arguments: [
                (
                    #"    @JSON(encodr: JSONEncoder()) @POST("/u") func f() async throws"#, 10,
                    "incorrect argument label"
                ),
                (
                    #"    @Authorization(.digest("x")) @GET("/u") func f() async throws"#, 21,
                    "has no member 'digest'"
                ),
                (#"    @HTTP("/u") func f() async throws"#, 5, "@HTTP needs its method as a string literal"),
            ])
        func attributeArguments(member: String, column: Int, message: String) async throws {
            let (line, output) = try await Self.error(compiling: member, column: column)
            #expect(line?.contains(message) == true, "\(output)")
        }

        /// The error lines of the compiler's output, each with the source line it shows.
        static func errors(in output: String) -> [(error: Substring, source: Substring?)] {
            let lines = output.split(separator: "\n")
            return lines.indices.filter { lines[$0].contains(": error: ") }.map {
                (lines[$0], $0 + 1 < lines.count ? lines[$0 + 1] : nil)
            }
        }

        @Test("a result that can never be decoded is one error at its place, with no notes about request(_:)")
        func undecodableResult() async throws {
            let (line, output) = try await Self.error(
                compiling: #"    @GET("/x") func f() async throws -> [String: Any]"#, column: 50)
            #expect(line?.contains("'f' cannot return [String: Any]") == true, "\(output)")
            #expect(line?.contains("declare a Decodable & Sendable type for the body") == true, "\(output)")
            #expect(Self.errors(in: output).count == 1, "\(output)")
            #expect(!output.contains("note: "), "\(output)")
        }

        @Test(
            "a model that is not Sendable, or not Decodable, is one error per requirement, on a line naming it"
        )
        func modelsThatCannotBeResults() async throws {
            let result = try await Self.typecheck(
                """
                import Osprey
                public class Model: Decodable {}
                public final class Plain: Sendable {}
                @API
                public protocol P {
                    @GET("/m") func model() async throws -> Model
                    @GET("/p") func plain() async throws -> [Plain]
                    @GET("/c") func callback(completion: @escaping (Result<Model, any Error>) -> Void)
                }
                """)
            #expect(result.status != 0)
            let errors = Self.errors(in: result.output)
            #expect(errors.count == 3, "\(result.output)")
            let model = errors.first { $0.source?.contains("'model()' returns Model") == true }
            let notSendable = "error: type 'Model' does not conform to the 'Sendable' protocol"
            #expect(model?.error.hasSuffix(notSendable) == true, "\(result.output)")
            #expect(model?.source?.contains("which must be Decodable & Sendable") == true, "\(result.output)")
            let plain = errors.first { $0.source?.contains("'plain()' returns [Plain]") == true }
            #expect(
                plain?.error.contains(
                    "is unavailable: the result of an @API requirement must be Decodable & Sendable") == true,
                "\(result.output)")
            #expect(errors.contains { $0.source?.contains("'callback(completion:)' returns Model") == true })
            // No note for each overload of request(_:) that does not fit.
            #expect(!result.output.contains("not the expected contextual result type"), "\(result.output)")
        }

        @Test("refining a protocol is one error at its name in the inheritance clause")
        func refinement() async throws {
            let result = try await Self.typecheck(
                """
                import Osprey
                protocol BaseUsers { func base() async throws }
                @API
                protocol Users: BaseUsers {
                    @GET("/u") func user() async throws
                }
                """)
            #expect(result.status != 0)
            let errors = Self.errors(in: result.output)
            #expect(errors.count == 1, "\(result.output)")
            let expected =
                "\(result.file):4:17: error: @API cannot implement what 'Users' inherits from 'BaseUsers'"
            #expect(errors.first?.error.hasPrefix(expected) == true, "\(result.output)")
        }

        @Test("a fix-it reaches the compiler as a note with its replacement")
        func fixIt() async throws {
            let result = try await Self.typecheck(
                "import Osprey\n@API\nprotocol P {\n    @GET(\"/u/:id\") func f() async throws\n}\n")
            #expect(result.output.contains(":4:14: note: add the parameter 'id'"), "\(result.output)")
            // The fix-it's text, shown under the place it would be inserted.
            #expect(result.output.contains("id: String"), "\(result.output)")
        }

        @Test("the plugin answers every frame, writes nothing but frames, and exits when its input closes")
        func frames() throws {
            let plugin = try ChildProcess(Self.plugin.path, standardInput: .pipe, standardOutput: .pipe)
            let input = try #require(plugin.input)

            func frame(_ json: String) -> Data {
                var length = UInt64(json.utf8.count).littleEndian
                return Data(bytes: &length, count: 8) + Data(json.utf8)
            }
            let requests = [
                #"{"getCapability":{"capability":{"protocolVersion":7}}}"#,
                "not json at all",
                #"{"somethingNew":{}}"#,
                #"{"expandAttachedMacro":{"macro":{"moduleName":"OspreyMacros","typeName":"APIMacro","name":"API "},"#
                    + #""macroRole":"peer","discriminator":"d","attributeSyntax":{"kind":"attribute","source":"@API ","#
                    + #""location":{"fileID":"M/f.swift","fileName":"/f.swift","offset":10,"line":2,"column":1}},"#
                    + #""declSyntax":{"kind":"declaration","source":"@API protocol P { @GET(\"/u/:id\") func f() async throws }","#
                    + #""location":{"fileID":"M/f.swift","fileName":"/f.swift","offset":10,"line":2,"column":1}}}}"#,
            ]
            for request in requests { #expect(input.write(frame(request))) }
            // Half a header, then end of input: the plugin must simply exit.
            #expect(input.write(Data([1, 0, 0])))
            input.close()
            let data = plugin.output?.readToEnd() ?? Data()
            #expect(plugin.wait() == 0)

            var answers: [[String: Any]] = []
            var rest = data[...]
            while rest.count >= 8 {
                let length = rest.prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                let payload = rest.dropFirst(8).prefix(length)
                #expect(payload.count == length)
                answers.append(
                    try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any]))
                rest = rest.dropFirst(8 + length)
            }
            #expect(rest.isEmpty, "bytes after the last frame")
            #expect(answers.count == 4)
            let capability = answers[0]["getCapabilityResult"] as? [String: Any]
            #expect((capability?["capability"] as? [String: Any])?["protocolVersion"] as? Int == 7)
            for unreadable in answers[1...2] {
                let result = unreadable["expandMacroResult"] as? [String: Any]
                #expect(result?["expandedSource"] == nil)
                #expect((result?["diagnostics"] as? [Any])?.count == 1)
            }
            let expansion = try #require(answers[3]["expandMacroResult"] as? [String: Any])
            let diagnostic = try #require((expansion["diagnostics"] as? [[String: Any]])?.first)
            let position = try #require(diagnostic["position"] as? [String: Any])
            #expect(position["fileName"] as? String == "/f.swift")
            // `:id` is at byte 27 of the declaration, which starts at byte 10 of the file.
            #expect(position["offset"] as? Int == 37)
            #expect(diagnostic["severity"] as? String == "error")
        }
    }
#endif
