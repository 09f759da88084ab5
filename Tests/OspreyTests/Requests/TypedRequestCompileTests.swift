import Foundation
import OspreyTesting
import Testing

#if os(Linux)
    /// Typed requests need a base URL: sending one from an API that is not a ``BaseAPI`` must
    /// not compile (it used to fail at run time). Typechecks snippets against the built modules,
    /// which sit in the `Modules` folder beside the test bundle.
    @Suite("Typed requests are checked at compile time")
    struct TypedRequestCompileTests {

        static func typecheck(_ body: String) async throws -> (status: Int32, output: String) {
            try await offPool { try typecheckBlocking(body) }
        }

        static func typecheckBlocking(_ body: String) throws -> (status: Int32, output: String) {
            let modules = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("Modules")
            try #require(
                FileManager.default.fileExists(
                    atPath: modules.appendingPathComponent("Osprey.swiftmodule").path))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "typed-\(UUID().uuidString).swift")
            defer { try? FileManager.default.removeItem(at: file) }
            try ("import Osprey\n" + body).write(to: file, atomically: true, encoding: .utf8)
            let build = modules.deletingLastPathComponent()
            return try ChildProcess.run(
                "/usr/bin/env",
                [
                    "swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path,
                    // Osprey's module needs the module maps of its C targets (CCurl, CPublicSuffix, CZlib) on Linux.
                    "-I", build.appendingPathComponent("CCurl.build").path,
                    "-I", build.appendingPathComponent("CPublicSuffix.build").path,
                    "-I", build.appendingPathComponent("CZlib.build").path,
                    file.path,
                ])
        }

        @Test("an API with a base URL sends typed requests; one without does not compile")
        func baseURLRequired() async throws {
            let withBase = try await Self.typecheck(
                """
                final class Items: AbstractAPI, BaseAPI, @unchecked Sendable {
                    let baseURL = "https://api.example.com"
                    func motd() -> Promise<String> { request(Request<String>.get("motd")) }
                }
                """)
            #expect(withBase.status == 0, "\(withBase.output)")
            let withoutBase = try await Self.typecheck(
                """
                final class Plain: AbstractAPI, @unchecked Sendable {
                    func motd() -> Promise<String> { request(Request<String>.get("motd")) }
                }
                """)
            #expect(withoutBase.status != 0)
            #expect(withoutBase.output.contains("error:"), "\(withoutBase.output)")
        }

        @Test("a typed request on an API without a base URL says to conform to BaseAPI")
        func pointsToBaseAPI() async throws {
            let output = try await Self.typecheck(
                """
                struct Credentials: Encodable, Sendable { var user: String }
                struct Session: Decodable, Sendable { var token: String }
                extension Request {
                    static func login(_ body: Credentials) -> Request<Session> { .post("login", body: body) }
                }
                final class Plain: AbstractAPI, @unchecked Sendable {
                    func login() -> Promise<Session> { request(.login(Credentials(user: "a"))) }
                }
                func outside(_ api: Plain) -> Promise<Session> { api.request(.login(Credentials(user: "b"))) }
                """)
            #expect(output.status != 0)
            let errors = output.output.split(separator: "\n").filter {
                $0.hasPrefix("/") && $0.contains(": error:")
            }
            #expect(errors.count == 2, "\(output.output)")
            #expect(errors.allSatisfy { $0.contains("make the API conform to BaseAPI") }, "\(output.output)")
            #expect(!output.output.contains("has no member 'login'"), "\(output.output)")
        }
    }
#endif
