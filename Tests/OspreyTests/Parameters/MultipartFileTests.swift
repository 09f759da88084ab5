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
        // Bytes with no pattern a boundary could match, made without a system call per word.
        content = patternedData(count: 3 * 1024 * 1024 + 17)
        try content.write(to: source)
    }

    /// The temporary bodies left, once the API's request queue has finished what it was doing
    /// (the pipeline removes a body just after settling the promise).
    private func temporaryFiles(after api: AbstractAPI) async -> [String] {
        await withCheckedContinuation { done in
            api.requestQueueForTesting.async(flags: .barrier) { done.resume() }
        }
        return temporaryFiles
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
        #expect(await temporaryFiles(after: api).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("the temp file is removed after a failure and after a cancellation")
    func cleanup() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/fail") { _ in .text("no", status: 500) }
        server.route("POST", "/slow") { _ in LoopbackServer.Response(status: 201).delayingHead(by: 3600) }
        let api = TestAPI(server)
        let failed: Promise<Void> = api.request(
            route: api.post(endpoint: "/fail"), parameters: parameters([Part(name: "f", fileURL: source)]))
        #expect(await failed.apiError?.statusCode == 500)
        #expect(await temporaryFiles(after: api).isEmpty)

        let slow: Promise<Void> = api.request(
            route: api.post(endpoint: "/slow"), parameters: parameters([Part(name: "f", fileURL: source)]))
        #expect(await server.waitForRequests(count: 2, timeout: 30))
        slow.cancel()
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(await server.waitUntilNoOpenConnections(timeout: 30))
        // Cancelling queued the removal on the API's request queue; a barrier waits for it.
        #expect(await temporaryFiles(after: api).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("cancelling mid-upload settles as cancelled, ends the connection and removes the temp file")
    func cancelMidUpload() async throws {
        // The server stops reading after 1 MiB, so the 32 MiB body is still going out when the
        // test cancels, however late that is. Once it reads again, it drains what the client's
        // kernel had buffered and sees the hang-up.
        let server = try LoopbackServer(configuration: .init(pausesReadingAfter: 1024 * 1024))
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 201) }
        let large = folder.appendingPathComponent("large.bin")
        let size = 32 * 1024 * 1024
        try Data(repeating: 0x5A, count: size).write(to: large)
        let api = TestAPI(server)
        let upload: Promise<Void> = api.request(
            route: api.post(endpoint: "/upload"), parameters: parameters([Part(name: "f", fileURL: large)]))
        #expect(await server.waitForReceivedBytes(atLeast: 1024 * 1024, timeout: 300))
        upload.cancel()
        await #expect(throws: CancellationError.self) { try await upload.value }
        server.resumeReading()
        #expect(await server.waitUntilNoOpenConnections(timeout: 300))
        #expect(server.requests.isEmpty)
        #expect(server.receivedByteCount < size)
        #expect(await temporaryFiles(after: api).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("the temporary body is created exclusively, readable and writable by its owner only")
    func temporaryBodyIsPrivate() async throws {
        // The server stops reading after 64 KiB: the upload, and its body file, stay in flight.
        let server = try LoopbackServer(configuration: .init(pausesReadingAfter: 64 * 1024))
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 201) }
        let large = folder.appendingPathComponent("private.bin")
        try Data(repeating: 0x42, count: 8 * 1024 * 1024).write(to: large)
        let api = TestAPI(server)
        let upload: Promise<Void> = api.request(
            route: api.post(endpoint: "/upload"), parameters: parameters([Part(name: "f", fileURL: large)]))
        #expect(await server.waitForReceivedBytes(atLeast: 64 * 1024, timeout: 60))
        let name = try #require(temporaryFiles.first)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent("tmp").appendingPathComponent(name).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        upload.cancel()
        server.resumeReading()
        _ = await upload.result
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("an upload that keeps sending is not idle: it outlasts an idle timeout shorter than it")
    func uploadProgressIsActivity() async throws {
        // 160 MiB read at 4 MiB/s takes about 40 s, well beyond the kernel buffers; the idle
        // timeout is 20 s. Counted from the request's start to the response, it would fire.
        // The rate matters too: once the last bytes sit in the kernel's buffers (up to about
        // 10 MiB on loopback), nothing moves until the server has read them, and a server slowed
        // by a loaded machine reads them slower still. 56 MiB at 2 MiB/s and 112 MiB at 4 MiB/s
        // against 14 s both timed out on URLSessionTransport with eight busy loops beside the
        // suites on two cores, where FoundationNetworking was seen to deliver nothing for 10 s.
        let server = try LoopbackServer(
            configuration: .init(
                maximumBodyBytes: 192 * 1024 * 1024, discardsBodies: true, readRateLimit: 4 * 1024 * 1024))
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 204) }
        let large = folder.appendingPathComponent("steady.bin")
        try Data(repeating: 0x33, count: 160 * 1024 * 1024).write(to: large)
        let api = TestAPI(server)
        api.configuration.timeout = 20
        let upload: Promise<Void> = api.request(
            route: api.post(endpoint: "/upload"), parameters: parameters([Part(name: "f", fileURL: large)]))
        try await upload.value
        #expect(server.requests.first?.bodyLength ?? 0 > 160 * 1024 * 1024)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("a missing, directory, special or unreadable file part fails before anything is sent")
    func badFiles() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let fifo = folder.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let cases: [(URL, String)] = [
            (folder.appendingPathComponent("missing.bin"), "does not exist"),
            (folder, "is a directory"),
            (fifo, "is not a regular file"),
            (URL(fileURLWithPath: "/dev/zero"), "is not a regular file"),
            (try unreadableFile(), "is not readable"),
        ]
        for (url, problem) in cases {
            let promise: Promise<Void> = api.request(
                route: api.post(endpoint: "/x"), parameters: parameters([Part(name: "f", fileURL: url)]))
            guard case .encodingFailed(let reason, _) = try #require(await promise.apiError) else {
                Issue.record("expected encodingFailed for \(url.path)")
                continue
            }
            #expect(reason.hasSuffix(problem), "\(url.path): \(reason)")
        }
        #expect(server.acceptedConnectionCount == 0)
        #expect(await temporaryFiles(after: api).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    /// A regular file this process cannot read. Root reads any file whatever its mode, but not
    /// a write-only sysctl: procfs checks those bits even for root.
    private func unreadableFile() throws -> URL {
        if getuid() != 0 {
            let file = folder.appendingPathComponent("secret.bin")
            try Data("secret".utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
            return file
        }
        let candidates = ["/proc/sys/vm/compact_memory", "/proc/sys/vm/drop_caches"]
        let path = try #require(candidates.first { FileManager.default.fileExists(atPath: $0) })
        return URL(fileURLWithPath: path)
    }

    @Test("an in-memory body above the limit goes through a file and arrives the same")
    func aboveLimit() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 204) }
        let api = TestAPI(server)
        let monitor = BodySeen()
        api.configuration.monitors = [monitor]
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
        // The first went from memory (a body in the URLRequest), the second from a file.
        #expect(monitor.bodies.withLock { $0 } == [true, false])
        #expect(await temporaryFiles(after: api).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Records, for each attempt, whether its URLRequest carried the body in memory.
private final class BodySeen: EventMonitor {
    let bodies = Locked<[Bool]>([])

    func receive(_ event: APIEvent) {
        if case .started = event.kind { bodies.withLock { $0.append(event.request.httpBody != nil) } }
    }
}
