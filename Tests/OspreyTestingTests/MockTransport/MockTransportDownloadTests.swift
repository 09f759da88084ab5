import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("MockTransport: absolute URLs, downloads and the wire contract")
struct MockTransportDownloadTests {
    @Test("each recorded request has the absolute URL the client used: scheme and host too")
    func absoluteURL() async throws {
        let mock = MockTransport()
        mock.route("GET", "/search") { _ in .json("[]") }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        _ = try await api.search("a b").value
        let url = try #require(mock.requests.first?.url)
        #expect(url.scheme == "https")
        #expect(url.host == "api.example.com")
        #expect(url.absoluteString == "https://api.example.com/search?q=a%20b")
    }

    @Test("a download is saved to its file from the reply's body, with its progress")
    func download() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-mock-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = MockTransport()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        // The reply waits until the test has added its progress handler.
        let handlerAdded = DispatchSemaphore(value: 0)
        mock.route("GET", "/files/:name") { _ in
            handlerAdded.wait()
            return .response(LoopbackServer.Response(headers: [.init("ETag", #""v1""#)], body: body))
        }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        let destination = folder.appendingPathComponent("report.bin")
        let reports = Locked<[TransferProgress]>([])
        let download = api.download(route: api.get(endpoint: "/files/report"), to: destination)
            .onProgress { progress in reports.withLock { $0.append(progress) } }
        handlerAdded.signal()
        let saved = try await download.value
        #expect(saved == destination)
        #expect(try Data(contentsOf: destination) == body)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.bin"])
        await api.responseQueueDrained()
        #expect(reports.withLock { $0.last?.completedBytes } == Int64(body.count))
    }

    @Test("a download's error status is the request's error, and no file is left")
    func downloadError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osprey-mock-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let mock = MockTransport()
        mock.route("GET", "/files/:name") { _ in .json(#"{"error": "gone"}"#, status: 404) }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        let result = await api.download(
            route: api.get(endpoint: "/files/report"), to: folder.appendingPathComponent("report.bin")
        ).result
        guard case .failure(let error as APIError) = result else {
            Issue.record("expected an APIError, got \(result)")
            return
        }
        #expect(error.statusCode == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("the mock checks requests like the real transports: an injected header fails before any route runs")
    func wireContract() async throws {
        let mock = MockTransport()
        mock.route("GET", "/search") { _ in .json("[]") }
        let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
        api.configuration.adapters = [AdaptRequest { $0.httpMethod = "GET /x HTTP/1.1\r\nX: y" }]
        let result = await api.search("a").result
        guard case .failure(APIError.invalidRequest) = result else {
            Issue.record("expected invalidRequest, got \(result)")
            return
        }
        #expect(mock.requests.isEmpty)
    }
}

extension AbstractAPI {
    /// Returns once the handlers queued on the response queue so far have run.
    func responseQueueDrained() async {
        await withCheckedContinuation { done in responseQueue.async { done.resume() } }
    }
}
