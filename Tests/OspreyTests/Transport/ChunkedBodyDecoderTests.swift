import Foundation
import Testing

@testable import Osprey

@Suite("Transport: chunked bodies read by hand (an upgrade's refusal)")
struct ChunkedBodyDecoderTests {
    /// Decodes `body` fed in pieces of `piece` bytes: the data, how many bytes belonged to the
    /// body, or the error.
    private static func decode(_ body: [UInt8], piece: Int) -> Result<
        (data: [UInt8], used: Int), ChunkedBodyDecoder.Malformed
    > {
        var decoder = ChunkedBodyDecoder()
        var data: [UInt8] = []
        var used = 0
        var start = 0
        do {
            while start < body.count, !decoder.isComplete {
                let end = min(start + piece, body.count)
                used += try body[start..<end].withUnsafeBytes { bytes in
                    try decoder.take(bytes) { data.append(contentsOf: $0) }
                }
                start = end
            }
        } catch {
            return .failure(error as? ChunkedBodyDecoder.Malformed ?? .init(reason: "\(error)"))
        }
        return decoder.isComplete ? .success((data, used)) : .failure(.init(reason: "incomplete"))
    }

    static let valid: [(body: String, data: String)] = [
        ("5\r\nhello\r\n0\r\n\r\n", "hello"),
        ("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"),
        ("A;name=value\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("a \r\n0123456789\r\n0\r\nExpires: never\r\nX-Trailer: 1\r\n\r\n", "0123456789"),
        ("3\nabc\n0\n\n", "abc"),
        ("0\r\n\r\n", ""),
    ]

    @Test("valid bodies decode the same whatever the pieces, and bytes after the end are not taken")
    func validBodies() throws {
        for (body, data) in Self.valid {
            let bytes = Array((body + "GET / HTTP/1.1").utf8)
            for piece in [1, 2, 3, 7, bytes.count] {
                let (decoded, used) = try Self.decode(bytes, piece: piece).get()
                #expect(
                    String(decoding: decoded, as: UTF8.self) == data, "\(body.debugDescription), \(piece)")
                #expect(used == body.utf8.count, "\(body.debugDescription), pieces of \(piece)")
            }
        }
    }

    static let invalid: [(body: String, why: String)] = [
        ("x\r\nabc\r\n0\r\n\r\n", "a size that is not hexadecimal"),
        ("\r\nabc\r\n0\r\n\r\n", "an empty size line"),
        (";ext\r\n", "extensions without a size"),
        ("3\r\nabcX\r\n0\r\n\r\n", "no line end after the data"),
        ("10000000000000000\r\n", "a size past 64 bits"),
        (String(repeating: "0", count: 5000) + "1\r\n", "a size line past 4 KiB"),
        ("0\r\n" + String(repeating: "X-A: b\r\n", count: 3000) + "\r\n", "trailers past 16 KiB"),
    ]

    @Test("broken framing is an error, never a crash or a short body taken as whole")
    func invalidBodies() {
        for (body, why) in Self.invalid {
            for piece in [1, 5, body.utf8.count] {
                guard case .failure = Self.decode(Array(body.utf8), piece: piece) else {
                    Issue.record("\(why): accepted in pieces of \(piece)")
                    continue
                }
            }
        }
    }
}
