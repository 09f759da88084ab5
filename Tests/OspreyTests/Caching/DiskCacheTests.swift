import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// The cache in a folder: found again by a new cache on the folder and by a new process,
/// damaged entries dropped, the byte limit held.
@Suite("Caching: HTTPCache on disk")
struct DiskCacheTests {
    private static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("osprey-cache-\(UUID().uuidString)")
    }

    /// A server whose `/report` answers `report N` (the N-th request it saw), fresh for ten
    /// minutes, and a cache folder of the test's own.
    final class ReportServer: Sendable {
        let server: LoopbackServer
        let folder = DiskCacheTests.folder()
        private let counter = Locked(0)

        init() throws {
            server = try LoopbackServer()
            server.route("/report") { [counter] _ in
                let number = counter.withLock { count in
                    count += 1
                    return count
                }
                return .text("report \(number)").adding(header: "Cache-Control", "max-age=600")
                    .adding(header: "X-Report", "\(number)")
            }
        }

        /// How many requests reached `/report`.
        var requestCount: Int { counter.withLock { $0 } }

        /// `/report` through an API whose cache is `cache`.
        func fetch(cache: HTTPCache) async throws -> APIResponse<String> {
            let api = TestAPI(server)
            api.configuration.cache = cache
            return try await api.request(route: api.get(endpoint: "/report")).value
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("a new cache on the same folder serves what an earlier one stored")
    func survivesRestart() async throws {
        let report = try ReportServer()
        defer { report.stop() }
        let folder = report.folder
        let first = try await report.fetch(cache: HTTPCache(folder: folder))
        #expect(first.value == "report 1")
        let reopened = try HTTPCache(folder: folder)
        #expect(reopened.totalBytes > 0)
        let again = try await report.fetch(cache: reopened)
        #expect(again.value == "report 1" && again.cacheStatus == .hit)
        #expect(again.headers["X-Report"] == "1")
        #expect(again.headers["Content-Type"] == first.headers["Content-Type"])
        #expect(report.requestCount == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent(try #require(files.first)).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("a new process on the same folder is answered from the disk, without a request")
    func newProcess() async throws {
        #if os(Linux)
            let report = try ReportServer()
            defer { report.stop() }
            let folder = report.folder
            let url = report.server.url("/report").absoluteString
            #expect(try await offPool { try Self.probe(folder: folder, url: url) } == "network report 1")
            #expect(try await offPool { try Self.probe(folder: folder, url: url) } == "hit report 1")
            #expect(report.requestCount == 1)
        #endif
    }

    /// What OspreyMemoryProbe, a process of its own, prints after fetching `url` through a disk
    /// cache in `folder`.
    private static func probe(folder: URL, url: String) throws -> String {
        let (status, text) = try ChildProcess.run(
            productsFolder().appendingPathComponent("OspreyMemoryProbe").path, ["cache", folder.path, url])
        try #require(status == 0, "the probe failed: \(text)")
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "a damaged entry is dropped and never served",
        arguments: ["truncated", "flipped", "garbage", "empty"])
    func damagedEntryDropped(damage: String) async throws {
        let report = try ReportServer()
        defer { report.stop() }
        let folder = report.folder
        _ = try await report.fetch(cache: HTTPCache(folder: folder))
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".entry") })
        let file = folder.appendingPathComponent(name)
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "truncated": bytes.removeLast(3)
        case "flipped": bytes[bytes.count - 2] ^= 0x20  // in the body: the checksum no longer matches
        case "garbage": bytes = Data("not a cache entry".utf8)
        default: bytes = Data()
        }
        try bytes.write(to: file)
        let answer = try await report.fetch(cache: HTTPCache(folder: folder))
        #expect(answer.value == "report 2" && answer.cacheStatus == nil)
        // The fresh answer took the damaged entry's place.
        #expect(try Data(contentsOf: file) != bytes)
        #expect(try await report.fetch(cache: HTTPCache(folder: folder)).value == "report 2")
    }

    @Test("the folder stays within its byte limit, also when reopened with a smaller one")
    func byteLimit() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = String(repeating: "y", count: 20_000)
        server.route("/blob/:n") { _ in .text(body).adding(header: "Cache-Control", "max-age=600") }
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try HTTPCache(folder: folder, maximumBytes: 70_000)
        let api = TestAPI(server)
        api.configuration.cache = cache
        for index in 0..<8 {
            let _: String = try await api.request(route: api.get(endpoint: "/blob/\(index)")).value
        }
        func folderBytes() throws -> Int {
            // The entries' bytes (the folder's credential key is not an entry).
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".entry") }
                .reduce(0) { total, name in
                    let path = folder.appendingPathComponent(name).path
                    return total
                        + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?
                            .intValue
                            ?? 0)
                }
        }
        #expect(try folderBytes() <= 70_000)
        #expect(try folderBytes() >= 40_000, "the most recent entries are kept")
        #expect(cache.totalBytes == Int64(try folderBytes()))
        let smaller = try HTTPCache(folder: folder, maximumBytes: 25_000)
        #expect(try folderBytes() <= 25_000)
        #expect(smaller.totalBytes == Int64(try folderBytes()))
    }

    @Test("entry files round-trip, and every cut or change of one is refused")
    func fileFormat() throws {
        var head = CachedResponse.Head(
            key: "GET http://example.test/a", url: "http://example.test/a", statusCode: 200, httpVersion: nil,
            fields: [["ETag", "\"1\""]], varied: ["accept": "text/plain"], requestTime: 1, responseTime: 2,
            bodyLength: 5, bodyChecksum: CachedResponse.checksum(Data("hello".utf8)))
        let first = CachedResponse(head: head, body: Data("hello".utf8))
        head.varied = [:]
        let second = CachedResponse(head: head, body: Data("hello".utf8))
        let data = try #require(DiskCacheStorage.encode([first, second]))
        #expect(DiskCacheStorage.decode(data) == [first, second])
        for length in 0..<data.count {
            #expect(DiskCacheStorage.decode(data.prefix(length)) == nil, "cut at \(length)")
        }
        #expect(DiskCacheStorage.decode(data + Data([0])) == nil)
        for index in stride(from: 0, to: data.count, by: 7) {
            var changed = data
            changed[index] ^= 0x01
            let decoded = DiskCacheStorage.decode(changed)
            // A change inside the JSON may still parse; it must then not pass for the original.
            #expect(decoded == nil || decoded != [first, second], "changed at \(index)")
        }
    }
}
