import Foundation
import Osprey
import Testing

@testable import OspreyTesting

@Suite("HARFile: a cassette's file grows in place, byte for byte the archive written whole")
struct HARFileTests {
    private func entry(_ index: Int) -> HAR.Entry {
        var entry = HAR.Entry(
            startedDateTime: "2026-12-05T08:00:0\(index % 10).000Z", time: Double(index),
            request: HAR.Request(
                method: "POST", url: "http://127.0.0.1/items/\(index)",
                headers: [HAR.Field(name: "Content-Type", value: "application/json")],
                postData: HAR.PostData(mimeType: "application/json", text: #"{"a":[],"b":{}}"#)),
            response: HAR.Response(
                status: 200, content: HAR.Content(size: 2, mimeType: "application/json", text: "{}")),
            timings: HAR.Timings(send: 0, wait: Double(index), receive: 0))
        entry.comment = "line one\nline two / \(index)"
        return entry
    }

    private func inode(_ url: URL) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
    }

    @Test("entries appended one save at a time give the bytes of the whole archive, in the same file")
    func appendsInPlace() throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let url = folder.file()
        var file = HARFile(url: url)
        let entries = (0..<5).map(entry)
        try file.write([entries[0]], after: [])
        let first = try inode(url)
        #expect(first != nil)
        for count in 2...5 {
            #expect(file.holds(count - 1))
            try file.write([entries[count - 1]], after: Array(entries.prefix(count - 1)))
            #expect(try Data(contentsOf: url) == HAR(entries: Array(entries.prefix(count))).encoded())
        }
        // Written whole the file would have been replaced (an atomic write renames a new one in).
        #expect(try inode(url) == first)
        #expect(try HAR(data: Data(contentsOf: url)).log.entries == entries)
    }

    @Test("a file changed by someone else is written whole again, not appended to")
    func changedFileRewritten() throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let url = folder.file()
        var file = HARFile(url: url)
        try file.write([entry(0)], after: [])
        // Someone replaces the file with one of the same size: the size alone does not tell,
        // its closing text does.
        let size = try Data(contentsOf: url).count
        try Data(repeating: UInt8(ascii: "x"), count: size).write(to: url)
        try file.write([entry(1)], after: [entry(0)])
        #expect(try Data(contentsOf: url) == HAR(entries: [entry(0), entry(1)]).encoded())
        // And one that grew: written whole again too.
        try Data("\n".utf8).appendAll(to: url)
        try file.write([entry(2)], after: [entry(0), entry(1)])
        #expect(try Data(contentsOf: url) == HAR(entries: [entry(0), entry(1), entry(2)]).encoded())
    }

    @Test("a cassette saving each recording leaves a file that reads and re-encodes to itself")
    func cassetteFile() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/item") { request in .json(#"{"name":"\#(request.path)","count":1}"#) }
        let cassette = try Cassette(file: folder.file(), transport: liveTransport())
        let api = RecordedAPI(baseURL: server.url("").absoluteString, transport: cassette)
        for page in 0..<4 {
            _ =
                try await api.request(
                    route: api.get(endpoint: "/item"), parameters: URLParameters(["page": page])
                ).value as RecordedAPI.Item
        }
        let written = try Data(contentsOf: folder.file())
        let archive = try HAR(data: written)
        #expect(archive.log.entries.count == 4)
        #expect(try archive.encoded() == written)
        #expect(archive.log.entries.map(\.request.queryString.first?.value) == ["0", "1", "2", "3"])
    }
}

extension Data {
    /// Appends the bytes to the end of the file at `url`.
    fileprivate func appendAll(to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: self)
    }
}
