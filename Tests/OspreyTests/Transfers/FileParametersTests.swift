import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Transfers: file bodies")
struct FileParametersTests {
    @Test("a file is the raw body, byte for byte, with its type and length")
    func rawBody() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let file = folder.file("clip.mp4")
        let body = patternedData(count: 3 * 1024 * 1024 + 5)
        try body.write(to: file)
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("PUT", "/upload") { _ in LoopbackServer.Response(status: 200) }
        let api = TestAPI(server)
        try await
            (api.request(route: api.put(endpoint: "/upload"), parameters: FileParameters(fileURL: file))
            as Promise<Void>).value
        let request = try #require(server.onlyRequest)
        #expect(request.body == body)
        #expect(request.value(forHeader: "Content-Type") == "video/mp4")
        #expect(request.value(forHeader: "Content-Length") == "\(body.count)")
        // The caller's file is never removed.
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test("a retry and a 307 redirect send the whole file again")
    func replay() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let file = folder.file("data.bin")
        let body = patternedData(count: 1024 * 1024)
        try body.write(to: file)
        let server = try LoopbackServer()
        defer { server.stop() }
        let attempts = Counter()
        server.route("PUT", "/busy") { _ in
            let attempt = attempts.next()
            return attempt == 1 ? .text("busy", status: 503) : .redirect(307, to: "/final")
        }
        server.route("PUT", "/final") { _ in LoopbackServer.Response(status: 201) }
        let api = TestAPI(server)
        api.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 2, baseDelay: 0.01)
        try await
            (api.request(
                route: api.put(endpoint: "/busy"),
                parameters: FileParameters(fileURL: file, contentType: "application/x-test"))
            as Promise<Void>).value
        #expect(server.requests.map(\.path) == ["/busy", "/busy", "/final"])
        #expect(server.requests.allSatisfy { $0.body == body })
        #expect(server.requests.allSatisfy { $0.value(forHeader: "Content-Type") == "application/x-test" })
    }

    @Test(
        "a file that cannot be sent fails before anything is sent",
        arguments: ["missing", "folder", "fifo"])
    func badFiles(kind: String) async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let file = folder.file(kind)
        switch kind {
        case "folder": try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        case "fifo": #expect(mkfifo(file.path, 0o600) == 0)
        default: break
        }
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let promise: Promise<Void> = api.request(
            route: api.put(endpoint: "/x"), parameters: FileParameters(fileURL: file))
        let error = try #require(await promise.apiError)
        guard case .encodingFailed(let reason, _) = error else {
            Issue.record("expected encodingFailed, got \(error)")
            return
        }
        #expect(reason.contains("body file \"\(kind)\""), "\(reason)")
        #expect(server.requests.isEmpty)
    }

    @Test("a GET cannot carry a file")
    func noBodyOnGet() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let file = folder.file("a.txt")
        try Data("a".utf8).write(to: file)
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let promise: Promise<Void> = api.request(
            route: api.get(endpoint: "/x"), parameters: FileParameters(fileURL: file))
        guard case .invalidRequest = try #require(await promise.apiError) else {
            Issue.record("expected invalidRequest")
            return
        }
    }
}
