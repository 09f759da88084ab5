import Foundation
import Osprey
import Testing

@Suite("HAR: multipart bodies read back into their parts")
struct HARMultipartTests {
    private static let mimeType = "multipart/form-data; boundary=XyZ"
    private static let body = Data(
        ("preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n\u{0}\r\n-XyZ --Xy\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n--XyZ--\r\n").utf8)

    @Test("fields, files and an empty part; a CRLF and near-boundaries inside content stay content")
    func parts() throws {
        let multipart = try #require(HAR.Multipart(Self.body, mimeType: Self.mimeType))
        #expect(multipart.parts.map(\.name) == ["title", "file", "empty"])
        #expect(
            multipart.parts.map(\.content) == [Data("hello".utf8), Data("\u{0}\r\n-XyZ --Xy".utf8), Data()])
        #expect(
            multipart.params == [
                HAR.Param(name: "title", value: "hello"),
                HAR.Param(
                    name: "file", value: nil, fileName: "a.bin", contentType: "application/octet-stream"),
                HAR.Param(name: "empty", value: ""),
            ])
        // Written again, the body is the same but for the preamble.
        let written = try #require(HAR.Multipart(multipart.body, mimeType: Self.mimeType))
        #expect(written == multipart)
        #expect(multipart.body == Self.body.dropFirst("preamble\r\n".utf8.count))
    }

    @Test("what Osprey's encoder writes reads back byte for byte")
    func encoderRoundTrip() throws {
        let parameters = MultipartParameters(parts: [
            Part(name: "a \"quoted\" name", value: "x"),
            Part(
                mimeType: .png, data: Data([0xff, 0, 13, 10]),
                attributes: ["name": "data", "filename": "é.bin"]),
        ])
        let encoded = try Route.post("https://h/upload").makeURLRequest(parameters: parameters)
        let mimeType = try #require(encoded.value(forHTTPHeaderField: "Content-Type"))
        let body = try #require(encoded.httpBody)
        let multipart = try #require(HAR.Multipart(body, mimeType: mimeType))
        #expect(multipart.body == body)
        #expect(multipart.parts.map(\.name) == ["a %22quoted%22 name", "data"])
        #expect(multipart.parts[1].content == Data([0xff, 0, 13, 10]))
    }

    @Test("a body cut anywhere, or under another boundary, reads as nil: never a trap")
    func malformed() {
        // The closing delimiter ends the body; the CRLF after it is optional.
        let closed = Self.body.count - "\r\n".utf8.count
        #expect(HAR.Multipart(Self.body.prefix(closed), mimeType: Self.mimeType) != nil)
        for count in 0..<closed {
            #expect(HAR.Multipart(Self.body.prefix(count), mimeType: Self.mimeType) == nil, "cut at \(count)")
        }
        #expect(HAR.Multipart(Self.body, mimeType: "multipart/form-data; boundary=Other") == nil)
        #expect(HAR.Multipart(Self.body, mimeType: "application/json") == nil)
        #expect(HAR.Multipart(Self.body, mimeType: "multipart/form-data") == nil)
    }
}
