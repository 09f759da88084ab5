import Foundation
import Osprey
import OspreyTesting
import Testing

/// The archives Osprey writes, read by other tools: a JSON Schema of HAR 1.2 written from the
/// specification (`Scripts/har-1.2.schema.json`, checked by `Scripts/check-har.py` with PyPI's
/// `jsonschema`) and haralyzer. Scripts/with-httpbin.sh
/// installs both and exports `OSPREY_PYTHON`.
@Suite(
    "HAR: what Osprey writes passes the HAR 1.2 schema and loads in haralyzer",
    .enabled(
        if: ProcessInfo.processInfo.environment["OSPREY_PYTHON"] != nil,
        "OSPREY_PYTHON is not set: run the tests with Scripts/test.sh"))
struct HARConformanceTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Scripts").standardized

    @Test("JSON, forms, multipart, binary, a stream, an error and a redirect, from a cassette and a recorder")
    func conforms() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/json") { _ in .json(#"{"name": "a", "count": 1}"#) }
        server.route("POST", "/echo") { request in
            .json(#"{"name": "posted", "count": \#(request.body.count)}"#)
        }
        server.route("GET", "/blob") { _ in
            LoopbackServer.Response(
                headers: [.init("Content-Type", "image/png")], body: Data([0x89, 0x50, 0x4e, 0x47, 0]))
        }
        server.route("GET", "/feed") { _ in
            .streaming(headers: [.init("Content-Type", "text/event-stream")]) { body in
                body.write("data: 1\n\n")
                body.write("data: 2\n\n")
            }
        }
        server.route("GET", "/missing") { _ in .json(#"{"error": "no"}"#, status: 404) }
        server.route("GET", "/moved") { _ in
            LoopbackServer.Response(status: 302, headers: [.init("Location", "/json")])
        }
        let recorder = HARRecorder()
        let cassette = try Cassette(file: folder.file("cassette.har"), transport: liveTransport())
        let api = RecordedAPI(baseURL: server.url("").absoluteString, transport: cassette)
        api.configuration.monitors = [recorder]

        let _: RecordedAPI.Item = try await api.request(
            route: api.get(endpoint: "/json"), parameters: URLParameters(["q": "a b", "page": "2"])
        ).value
        let _: RecordedAPI.Item = try await api.request(
            route: api.post(endpoint: "/echo"), parameters: JSONParameters(["name": "x", "count": 1])
        ).value
        let _: RecordedAPI.Item = try await api.request(
            route: api.post(endpoint: "/echo"), parameters: FormURLParameters(["name": "x y", "count": "1"])
        ).value
        let upload = folder.file("upload.bin")
        try Data([0, 1, 2, 0xff]).write(to: upload)
        let _: RecordedAPI.Item = try await api.request(
            route: api.post(endpoint: "/echo"),
            parameters: MultipartParameters(parts: [
                .init(name: "title", value: "a"),
                .init(name: "file", fileURL: upload, mimeType: "application/octet-stream"),
            ])
        ).value
        let _: Data = try await api.request(route: api.get(endpoint: "/blob")).value
        for try await _ in api.stream(route: api.get(endpoint: "/feed")) {}
        let missing: Result<RecordedAPI.Item, any Error> = await api.request(
            route: api.get(endpoint: "/missing")
        ).result
        #expect(throws: APIError.self) { try missing.get() }
        let _: RecordedAPI.Item = try await api.request(route: api.get(endpoint: "/moved")).value
        await withCheckedContinuation { done in
            api.requestQueueForTesting.async(flags: .barrier) { done.resume() }
        }
        try recorder.write(to: folder.file("recorder.har"))
        try FileManager.default.removeItem(at: upload)

        #expect(cassette.entries.count == 9, "the redirect and its target are two entries")
        #expect(recorder.archive.log.entries.count == 9)
        let python = try #require(ProcessInfo.processInfo.environment["OSPREY_PYTHON"])
        let (status, output) = try await ChildProcess.run(
            python,
            [
                Self.here.appendingPathComponent("check-har.py").path,
                Self.here.appendingPathComponent("har-1.2.schema.json").path,
                folder.file("cassette.har").path, folder.file("recorder.har").path,
                // The recording the GitHub example's tests replay.
                Self.here.appendingPathComponent("../Tests/Recordings/github.har").standardized.path,
            ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("cassette.har: valid, 9 entries"), "\(output)")
        #expect(output.contains("recorder.har: valid, 9 entries"), "\(output)")
        #expect(output.contains("github.har: valid, 4 entries"), "\(output)")
    }

    @Test("the checker is not a rubber stamp: an archive missing a required field fails it")
    func checkerRefuses() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let entry = HAR.Entry(
            request: URLRequest(url: URL(string: "http://127.0.0.1/x")!), requestBody: nil,
            response: HTTPURLResponse(
                url: URL(string: "http://127.0.0.1/x")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: [:])!,
            responseBody: Data(), started: Date())
        let text = String(decoding: try HAR(entries: [entry]).encoded(), as: UTF8.self)
            .replacingOccurrences(of: "\"redirectURL\"", with: "\"redirectUrl\"")
        try text.write(to: folder.file("broken.har"), atomically: true, encoding: .utf8)
        let python = try #require(ProcessInfo.processInfo.environment["OSPREY_PYTHON"])
        let (status, output) = try await ChildProcess.run(
            python,
            [
                Self.here.appendingPathComponent("check-har.py").path,
                Self.here.appendingPathComponent("har-1.2.schema.json").path, folder.file("broken.har").path,
            ])
        #expect(status == 1)
        #expect(output.contains("redirectURL"), "\(output)")
    }
}
