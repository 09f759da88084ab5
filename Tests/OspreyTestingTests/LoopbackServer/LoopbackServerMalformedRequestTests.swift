import Foundation
import OspreyTestSupport
import OspreyTesting
import Testing

@Suite("Loopback server: malformed requests get an error status, never a crash", .onItsOwnThread)
struct LoopbackServerMalformedRequestTests {
    static let cases: [(name: String, bytes: String, status: Int)] = [
        ("bare LF line endings", "GET / HTTP/1.1\nHost: x\n\n\r\n\r\n", 400),
        ("CR inside a header value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", 400),
        ("NUL inside a header value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", 400),
        ("obsolete line folding", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", 400),
        ("space before the colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A : a\r\n\r\n", 400),
        ("header without colon", "GET / HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n", 400),
        ("method that is not a token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("extra space in the request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("unknown protocol", "GET / SPDY/3\r\nHost: x\r\n\r\n", 400),
        ("unsupported HTTP version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n", 400),
        ("two Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        (
            "both Content-Length and chunked",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400
        ),
        (
            "conflicting Content-Lengths",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400
        ),
        ("negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
        ("unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("invalid chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (
            "chunk without trailing CRLF",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", 400
        ),
    ]

    @Test("refuses", arguments: cases)
    func refuses(name: String, bytes: String, status: Int) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/") { _ in .text("should not run") }
        let connection = try RawConnection(port: server.port)
        try connection.send(bytes)
        let response = try connection.readResponse()
        #expect(response.status == status, "\(name)")
        #expect(response.value(forHeader: "Connection") == "close")
        #expect(try connection.readUntilClosed().isEmpty)
        #expect(server.requests.isEmpty)
        let rejection = try #require(server.rejections.first)
        #expect(rejection.status == status)
        #expect(!rejection.raw.isEmpty)
    }

    @Test("refuses a head larger than the limit with 431")
    func headTooLarge() throws {
        let server = try LoopbackServer(configuration: .init(maximumHeadBytes: 1024))
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n")
        #expect(try connection.readResponse().status == 431)
    }

    @Test(
        "refuses a body larger than the limit with 413, fixed or chunked",
        arguments: [
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7D0\r\n",
        ])
    func bodyTooLarge(head: String) throws {
        let server = try LoopbackServer(configuration: .init(maximumBodyBytes: 1000))
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try connection.send(head)
        #expect(try connection.readResponse().status == 413)
    }

    @Test("keeps serving other connections after a bad request")
    func survives() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/") { _ in .text("ok") }
        let bad = try RawConnection(port: server.port)
        try bad.send("\u{1}\u{2}\u{3} garbage\r\n\r\n")
        #expect(try bad.readResponse().status == 400)
        let good = try RawConnection(port: server.port)
        try good.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try good.readResponse().body == Data("ok".utf8))
    }
}
