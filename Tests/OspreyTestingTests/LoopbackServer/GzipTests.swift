import Foundation
import Testing

@testable import OspreyTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Gzip: streams any inflater decodes")
struct GzipTests {
    @Test("CRC-32 matches the standard check value, and zeros take the fast path exactly")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        for count in [0, 1, 7, 258, 65_536, 1_000_003] {
            #expect(
                CRC32.checksumOfZeros(count: count) == CRC32.checksum([UInt8](repeating: 0, count: count)))
        }
    }

    @Test("a bomb is about a thousandth of what it inflates to")
    func bombSize() {
        let bomb = Gzip.bomb(inflatedBytes: 1 << 30)
        #expect(bomb.count < (1 << 30) / 1000)
        #expect(bomb.prefix(3) == Data([0x1F, 0x8B, 8]))
    }

    @Test(
        "URLSession inflates gzipped bodies and bombs to exactly their bytes",
        arguments: [0, 1, 100_000])
    func throughURLSession(size: Int) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let text = String((0..<size).map { _ in "abc\u{e9}\n".randomElement()! })
        server.route("/text") { _ in .text(text).gzipped() }
        server.route("/bomb") { _ in .gzipBomb(inflatedBytes: 3 * 1024 * 1024 + size) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }

        let (body, response) = try await session.fetch(URLRequest(url: server.url("/text")))
        #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
        #expect(String(decoding: body, as: UTF8.self) == text)
        let (zeros, _) = try await session.fetch(URLRequest(url: server.url("/bomb")))
        #expect(zeros.count == 3 * 1024 * 1024 + size)
        #expect(zeros.allSatisfy { $0 == 0 })
    }
}
