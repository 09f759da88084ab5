import Foundation
import Osprey
import OspreyTesting
import Promises
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Cassette: downloads saved to their file and resumed from a recording")
struct CassetteDownloadTests {
    private static let body = Data(
        (0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })

    @Test("a download interrupted live resumes offline: the recording of the whole body answers its Range")
    func resumedFromWholeRecording() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        let served = Counter()
        server.route("GET", "/file") { request in
            let response = LoopbackServer.Response.ranged(Self.body, for: request, etag: #""v1""#)
            // The second answer (the live download below) stalls part way, until it is cancelled.
            return served.next() == 2 ? response.pausingBody(afterBytes: 256 * 1024, for: 3600) : response
        }
        let baseURL = server.url("").absoluteString

        let recorder = try Cassette(file: folder.file(), transport: liveTransport())
        let recording = RecordedAPI(baseURL: baseURL, transport: recorder)
        let whole = try await recording.download(
            route: recording.get(endpoint: "/file"), to: folder.url.appendingPathComponent("whole.bin")
        ).value
        #expect(try Data(contentsOf: whole) == Self.body)
        #expect(recorder.entries.first?.response.content.size == Self.body.count)

        let live = RecordedAPI(baseURL: baseURL, transport: liveTransport() ?? DefaultTransport.make())
        let destination = folder.url.appendingPathComponent("resumed.bin")
        let (partWay, reached) = Promise<Void>.pending()
        let interrupted = live.download(route: live.get(endpoint: "/file"), to: destination).onProgress {
            if $0.completedBytes >= 128 * 1024 { reached.fulfill(()) }
        }
        try await partWay.value
        interrupted.cancel()
        _ = await interrupted.result
        server.stop()

        let replay = RangeWatchingTransport(transport: try Cassette(file: folder.file(), mode: .none))
        let player = RecordedAPI(baseURL: baseURL, transport: replay)
        let saved = try await player.download(route: player.get(endpoint: "/file"), to: destination).value
        #expect(try Data(contentsOf: saved) == Self.body)
        // It went on from the bytes on disk rather than starting again. (Its progress reports
        // would show it too, but a handler added after `download` returned may come too late:
        // on a loaded machine the replay had ended before it was added.)
        let asked = replay.ranges.withLock { $0 }
        #expect(asked.count == 1)
        let offset = asked.first.flatMap { $0 }.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) }
        #expect((offset ?? 0) >= 128 * 1024, "asked for \(asked)")
        #expect(server.requests.count == 2)
    }

    @Test("a Range the recording cannot serve: 416 past the end, the whole body for another version")
    func rangesOutsideTheRecording() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        server.route("GET", "/file") { request in .ranged(Self.body, for: request, etag: #""v1""#) }
        let url = server.url("/file")
        _ = try await Cassette(file: folder.file(), transport: liveTransport())
            .send(TransportRequest(urlRequest: URLRequest(url: url))).value
        server.stop()
        func replay(range: String, ifRange: String?) async throws -> TransportResponse {
            var request = URLRequest(url: url)
            request.setValue(range, forHTTPHeaderField: "Range")
            request.setValue(ifRange, forHTTPHeaderField: "If-Range")
            return try await Cassette(file: folder.file(), mode: .none)
                .send(TransportRequest(urlRequest: request)).value
        }
        let rest = try await replay(range: "bytes=1000-", ifRange: #""v1""#)
        #expect(rest.statusCode == 206)
        #expect(rest.headers["Content-Range"] == "bytes 1000-\(Self.body.count - 1)/\(Self.body.count)")
        #expect(rest.data == Self.body.dropFirst(1000))
        let past = try await replay(range: "bytes=\(Self.body.count)-", ifRange: nil)
        #expect(past.statusCode == 416)
        #expect(past.headers["Content-Range"] == "bytes */\(Self.body.count)")
        for other in [#""v2""#, #"W/"v1""#] {
            let whole = try await replay(range: "bytes=1000-", ifRange: other)
            #expect(whole.statusCode == 200, "If-Range \(other)")
            #expect(whole.data == Self.body)
        }
    }
}
