import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("MultipartParameters: file parts streamed from disk")
struct MultipartFileTests {
    let folder: URL
    let source: URL
    let content: Data

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        source = folder.appendingPathComponent("clip.mov")
        var generator = SystemRandomNumberGenerator()
        content = Data((0..<(3 * 1024 * 1024 + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try content.write(to: source)
    }

    private var temporaryFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path))
            ?? []
    }

    private func parameters(_ parts: [Part]) -> MultipartParameters {
        let parameters = MultipartParameters(parts: parts, boundary: "BOUNDARY")
        parameters.temporaryDirectory = folder.appendingPathComponent("tmp")
        return parameters
    }

    @Test(
        "a file part arrives byte for byte, with the file name and type from its URL; the temp file is gone")
    func upload() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 201) }
        let api = TestAPI(server)
        let sent: Promise<Void> = api.request(
            route: api.post(endpoint: "/upload"),
            parameters: parameters([Part(name: "note", value: "hi"), Part(name: "video", fileURL: source)])
        )
        try await sent.value
        let received = try #require(server.requests.first)
        var expected = Data("--BOUNDARY\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n".utf8)
        expected += Data(
            "--BOUNDARY\r\nContent-Disposition: form-data; name=\"video\"; filename=\"clip.mov\"\r\n".utf8)
        expected +=
            Data("Content-Type: video/quicktime\r\n\r\n".utf8) + content + Data("\r\n--BOUNDARY--\r\n".utf8)
        #expect(received.body == expected)
        #expect(received.value(forHeader: "Content-Length") == String(expected.count))
        #expect(received.value(forHeader: "Content-Type") == "multipart/form-data; boundary=BOUNDARY")
        #expect(temporaryFiles.isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("the temp file is removed after a failure and after a cancellation")
    func cleanup() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/fail") { _ in .text("no", status: 500) }
        server.route("POST", "/slow") { _ in LoopbackServer.Response(status: 201).delayingHead(by: 30) }
        let api = TestAPI(server)
        let failed: Promise<Void> = api.request(
            route: api.post(endpoint: "/fail"), parameters: parameters([Part(name: "f", fileURL: source)]))
        #expect(await failed.apiError?.statusCode == 500)
        #expect(temporaryFiles.isEmpty)

        let slow: Promise<Void> = api.request(
            route: api.post(endpoint: "/slow"), parameters: parameters([Part(name: "f", fileURL: source)]))
        #expect(await server.waitForRequests(count: 2, timeout: 30))
        slow.cancel()
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(await server.waitUntilNoOpenConnections(timeout: 30))
        // Cancelling queued the removal on the API's request queue; a barrier waits for it.
        await withCheckedContinuation { done in
            api.requestQueueForTesting.async(flags: .barrier) { done.resume() }
        }
        #expect(temporaryFiles.isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("a missing, directory or unreadable file part fails before anything is sent")
    func badFiles() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let missing = folder.appendingPathComponent("missing.bin")
        for url in [missing, folder] {
            let promise: Promise<Void> = api.request(
                route: api.post(endpoint: "/x"), parameters: parameters([Part(name: "f", fileURL: url)]))
            guard case .encodingFailed = try #require(await promise.apiError) else {
                Issue.record("expected encodingFailed for \(url.lastPathComponent)")
                continue
            }
        }
        #expect(server.acceptedConnectionCount == 0)
        #expect(temporaryFiles.isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("an in-memory body above the limit goes through a file and arrives the same")
    func aboveLimit() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 204) }
        let api = TestAPI(server)
        let parts = [Part(name: "a", value: String(repeating: "x", count: 100))]
        let small = parameters(parts)
        let viaFile = parameters(parts)
        viaFile.inMemoryLimit = 10
        let first: Promise<Void> = api.request(route: api.post(endpoint: "/upload"), parameters: small)
        try await first.value
        let second: Promise<Void> = api.request(route: api.post(endpoint: "/upload"), parameters: viaFile)
        try await second.value
        #expect(server.requests.count == 2)
        #expect(server.requests[0].body == server.requests[1].body)
        #expect(temporaryFiles.isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }
}
