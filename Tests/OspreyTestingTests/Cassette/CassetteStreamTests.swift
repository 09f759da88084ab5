import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Cassette: streamed bodies and binary bodies")
struct CassetteStreamTests {
    @Test("a streamed body is recorded whole and replayed in the pieces it arrived in")
    func streamPieces() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let gate = DispatchSemaphore(value: 0)
        server.route("GET", "/feed") { _ in
            .streaming(headers: [.init("Content-Type", "text/event-stream")]) { body in
                for index in 0..<3 {
                    body.write("data: \(index)\n\n")
                    // The client acknowledges each piece, so each arrives alone.
                    _ = gate.wait(timeout: .now() + 10)
                }
            }
        }
        let baseURL = server.url("").absoluteString
        func read(_ cassette: Cassette, acknowledging: Bool) async throws -> [String] {
            let api = RecordedAPI(baseURL: baseURL, transport: cassette)
            var pieces: [String] = []
            for try await piece in api.stream(route: api.get(endpoint: "/feed")) {
                pieces.append(String(decoding: piece, as: UTF8.self))
                if acknowledging { gate.signal() }
            }
            return pieces
        }
        let live = try await read(
            try Cassette(file: folder.file(), transport: liveTransport()), acknowledging: true)
        #expect(live == ["data: 0\n\n", "data: 1\n\n", "data: 2\n\n"])
        let recorded = try #require(
            try Cassette(file: folder.file(), transport: liveTransport()).entries.first)
        #expect(recorded.response.content.chunks == [9, 9, 9])
        #expect(recorded.response.content.text == "data: 0\n\ndata: 1\n\ndata: 2\n\n")

        let replayed = try await read(
            try Cassette(file: folder.file(), mode: .none, transport: liveTransport()), acknowledging: false)
        #expect(replayed == live)
        #expect(server.requests.count == 1)
    }

    @Test("a binary body is kept in base64 and replayed byte for byte")
    func binary() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let bytes = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.route("GET", "/blob") { _ in
            LoopbackServer.Response(
                status: 200, headers: [.init("Content-Type", "application/octet-stream")], body: bytes)
        }
        let baseURL = server.url("").absoluteString
        func fetch(_ cassette: Cassette) async throws -> Data {
            let api = RecordedAPI(baseURL: baseURL, transport: cassette)
            let data: Data = try await api.request(route: api.get(endpoint: "/blob")).value
            return data
        }
        #expect(try await fetch(try Cassette(file: folder.file(), transport: liveTransport())) == bytes)
        #expect(
            try Cassette(file: folder.file(), transport: liveTransport()).entries.first?.response.content
                .encoding == "base64")
        #expect(
            try await fetch(try Cassette(file: folder.file(), mode: .none, transport: liveTransport()))
                == bytes)
    }
}
