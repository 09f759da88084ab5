import Foundation
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ResponseFraming: Content-Length read strictly (RFC 9112 §6.3)")
struct ResponseFramingTests {
    @Test(
        "valid lengths",
        arguments: [
            ("0", Int64(0)), ("12", 12), ("012", 12), ("12, 12", 12), ("12,12", 12), (" 12 ", 12),
            ("9223372036854775807", .max),
        ])
    func valid(field: String, length: Int64) {
        #expect(ResponseFraming(contentLength: field) == .length(length))
    }

    @Test("no header is an unknown length")
    func absent() {
        #expect(ResponseFraming(contentLength: nil) == .unknown)
    }

    @Test(
        "malformed values are framing errors",
        arguments: ["12abc", "-1", "+1", "1 2", "", " ", "0x1", "1.0", "12,", ",12", "١٢"])
    func malformed(field: String) {
        guard case .invalid(let reason) = ResponseFraming(contentLength: field) else {
            Issue.record("\(field) was accepted")
            return
        }
        #expect(reason.contains("not a non-negative decimal integer"))
    }

    @Test("differing values are framing errors", arguments: ["12, 5", "5,12", "12, 12, 13"])
    func differing(field: String) {
        #expect(
            ResponseFraming(contentLength: field)
                == .invalid(reason: "Content-Length \"\(field)\" has differing values"))
    }

    @Test(
        "lengths beyond 64 bits are impossible",
        arguments: ["9223372036854775808", "100000000000000000000000"])
    func impossible(field: String) {
        #expect(ResponseFraming(contentLength: field) == .impossible)
    }

    @Test("Transfer-Encoding overrides Content-Length")
    func transferEncoding() throws {
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "http://h/")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Transfer-Encoding": "chunked", "Content-Length": "12abc"]))
        #expect(ResponseFraming(response) == .unknown)
    }

    @Test("the framing headers are found in any case, and names that only look alike are not them")
    func framingHeaders() throws {
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "http://h/")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: [
                    "content-LENGTH": "12", "TRANSFER-encoding": "chunked", "Content-Encoding": "gzip",
                    "Content_Length": "99", "Content-Lengths": "98", "X-Content-Length": "97",
                ]))
        let headers = FramingHeaders(response)
        #expect(headers.contentLength == "12")
        #expect(headers.transferEncoding == "chunked")
        #expect(headers.contentEncoding == "gzip")
        #expect(!HTTPHeaders.same("Content\rLength", "Content-Length"))
        #expect(!HTTPHeaders.same("Content-Lengt\u{0E}", "Content-Length"))
        #expect(HTTPHeaders.same("CONTENT-LENGTH", "Content-Length"))
    }
}
