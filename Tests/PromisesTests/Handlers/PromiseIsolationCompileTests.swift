import Foundation
import OspreyTesting
import Testing

#if os(Linux)
    /// Compiles snippets against the built `Promises` module with `swiftc -typecheck` in Swift 6
    /// mode, to prove what must not compile. Linux only: it relies on the test bundle being an
    /// executable beside the `Modules` folder of the build.
    @Suite("Main-actor isolation is checked at compile time")
    struct PromiseIsolationCompileTests {
        struct Compilation {
            var status: Int32
            var output: String
        }

        static func typecheck(_ source: String) async throws -> Compilation {
            try await Blocking.run { try typecheckBlocking(source) }
        }

        static func typecheckBlocking(_ source: String) throws -> Compilation {
            let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            let modules = buildFolder.appendingPathComponent("Modules")
            try #require(
                FileManager.default.fileExists(
                    atPath: modules.appendingPathComponent("Promises.swiftmodule").path),
                "Promises.swiftmodule not found in \(modules.path)"
            )
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("Snippet.swift")
            try source.write(to: file, atomically: true, encoding: .utf8)

            let (status, output) = try ChildProcess.run(
                "/usr/bin/env",
                ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, file.path])
            return Compilation(status: status, output: output)
        }

        static func model(handler: String) -> String {
            """
            import Dispatch
            import Promises

            @MainActor
            final class Model {
                var count = 0

                func load(_ promise: Promise<Int>) {
                    promise\(handler)
                }
            }
            """
        }

        @Test("a @MainActor handler may touch main-actor state (the control case)")
        func mainActorHandlerCompiles() async throws {
            let result = try await Self.typecheck(
                Self.model(handler: ".onSuccess { @MainActor value in self.count = value }"))
            #expect(result.status == 0, "\(result.output)")
        }

        @Test(
            "a handler on a background queue touching main-actor state is a compile error",
            arguments: [
                ".onSuccess(in: DispatchQueue.global()) { value in self.count = value }",
                ".onSuccess { value in self.count = value }",
                ".then(in: DispatchQueue.global()) { value in self.count = value }",
                ".finally(in: DispatchQueue.global()) { self.count = 0 }",
            ]
        )
        func backgroundHandlerRejected(handler: String) async throws {
            let result = try await Self.typecheck(Self.model(handler: handler))
            #expect(result.status != 0)
            #expect(result.output.contains("main actor-isolated"), "\(result.output)")
        }
    }
#endif
