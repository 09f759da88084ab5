import Foundation
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Loopback server: ranged responses")
struct LoopbackServerRangeTests {
    static let body = Data((0..<1000).map { UInt8($0 % 251) })

    private func fetch(range: String?, ifRange: String?, honoursRanges: Bool = true) async throws -> (
        Data, HTTPURLResponse
    ) {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file") { request in
            .ranged(
                Self.body, for: request, etag: #""v1""#, lastModified: "Wed, 01 Jan 2025 00:00:00 GMT",
                honoursRanges: honoursRanges)
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: server.url("/file"))
        request.setValue(range, forHTTPHeaderField: "Range")
        request.setValue(ifRange, forHTTPHeaderField: "If-Range")
        return try await session.fetch(request)
    }

    @Test("without Range: 200, the whole body, its validators and Accept-Ranges")
    func whole() async throws {
        let (data, response) = try await fetch(range: nil, ifRange: nil)
        #expect(response.statusCode == 200)
        #expect(data == Self.body)
        #expect(response.value(forHTTPHeaderField: "ETag") == #""v1""#)
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Wed, 01 Jan 2025 00:00:00 GMT")
        #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
    }

    @Test("Range with a matching If-Range (ETag or date), or none: 206 with the rest")
    func partial() async throws {
        for ifRange in [#""v1""#, "Wed, 01 Jan 2025 00:00:00 GMT", nil] {
            let (data, response) = try await fetch(range: "bytes=600-", ifRange: ifRange)
            #expect(response.statusCode == 206)
            #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 600-999/1000")
            #expect(data == Self.body.subdata(in: 600..<1000))
        }
    }

    @Test("a stale If-Range, or a server that ignores ranges: 200 with everything")
    func stale() async throws {
        let (stale, staleResponse) = try await fetch(range: "bytes=600-", ifRange: #""v0""#)
        #expect(staleResponse.statusCode == 200)
        #expect(stale == Self.body)
        let (ignored, ignoredResponse) = try await fetch(
            range: "bytes=600-", ifRange: nil, honoursRanges: false)
        #expect(ignoredResponse.statusCode == 200)
        #expect(ignored == Self.body)
        #expect(ignoredResponse.value(forHTTPHeaderField: "Accept-Ranges") == nil)
    }

    @Test("a start at or past the end: 416 with the length")
    func unsatisfiable() async throws {
        let (_, response) = try await fetch(range: "bytes=1000-", ifRange: nil)
        #expect(response.statusCode == 416)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes */1000")
    }
}
