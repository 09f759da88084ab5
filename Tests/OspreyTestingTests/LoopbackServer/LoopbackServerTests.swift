import Foundation
import Osprey
import OspreyTestSupport
import OspreyTesting
import Testing

@Suite("Loopback server: lifecycle, routing, recording", .onItsOwnThread)
struct LoopbackServerTests {
    @Test("listens on 127.0.0.1 with an ephemeral port and reports its base URL")
    func baseURL() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.baseURL(host: "localhost").absoluteString == "http://localhost:\(server.port)")
        #expect(server.url("/a?b=1").absoluteString == "http://127.0.0.1:\(server.port)/a?b=1")
    }

    @Test("once a server exists, CurlTransport keeps an idle connection for an hour, not 118 s")
    func clientsKeepIdleConnections() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        // The tests count the connections the server accepted; on a loaded machine two requests
        // of one test have come more than 118 s apart.
        #expect(CurlTransport.idleConnectionAge.withLock { $0 } == 3_600)
    }

    @Test("routes by method and path, capturing decoded path parameters")
    func routing() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/users/:name/repos") { request in
            .text("repos of \(request.pathParameters["name"] ?? "?")")
        }
        server.route("POST", "/users/:name/repos") { _ in .text("created", status: 201) }
        server.route("/files/*rest") { request in .text("file \(request.pathParameters["rest"] ?? "?")") }

        let connection = try RawConnection(port: server.port)
        try connection.send("GET /users/a%2Fb%20c/repos HTTP/1.1\r\nHost: x\r\n\r\n")
        let get = try connection.readResponse()
        #expect(get.status == 200)
        #expect(String(decoding: get.body, as: UTF8.self) == "repos of a/b c")

        try connection.send("POST /users/z/repos HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(try connection.readResponse().status == 201)

        try connection.send("DELETE /files/x/y.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "file x/y.txt")

        // A trailing slash is a different path, and an unknown method on a known path is unrouted.
        try connection.send("GET /users/z/repos/ HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().status == 404)
        try connection.send("PUT /users/z/repos HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().status == 404)
    }

    @Test("the route registered last wins, so a test can override one")
    func overriding() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/thing") { _ in .text("first") }
        server.route("GET", "/thing") { _ in .text("second") }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /thing HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "second")
    }

    @Test("a throwing handler answers 500 and the connection carries on")
    func throwingHandler() throws {
        struct Boom: Error {}
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/boom") { _ in throw Boom() }
        server.route("/fine") { _ in .text("fine") }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /fine HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().status == 500)
        #expect(try connection.readResponse().status == 200)
    }

    @Test("records every request with its exact bytes, headers in order, and decoded body")
    func recording() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/echo") { .echo(of: $0) }
        let raw =
            "PUT /echo?q=a%2Bb&flag HTTP/1.1\r\nHost: example\r\nX-B: 2\r\nx-a:  1 \r\nContent-Length: 5\r\n\r\nhello"
        let connection = try RawConnection(port: server.port)
        try connection.send(raw)
        let response = try connection.readResponse()
        let echo = try JSONDecoder().decode(LoopbackServer.Echo.self, from: response.body)

        let request = try #require(server.requests.first)
        #expect(request.raw == Data(raw.utf8))
        #expect(request.method == "PUT")
        #expect(request.target == "/echo?q=a%2Bb&flag")
        #expect(request.path == "/echo")
        #expect(request.query == "q=a%2Bb&flag")
        #expect(
            request.queryItems == [
                URLQueryItem(name: "q", value: "a+b"), URLQueryItem(name: "flag", value: nil),
            ])
        #expect(
            request.headers.map(\.description) == ["Host: example", "X-B: 2", "x-a: 1", "Content-Length: 5"])
        #expect(request.value(forHeader: "X-A") == "1")
        #expect(request.bodyText == "hello")
        #expect(echo == LoopbackServer.Echo(request))
        #expect(echo.body == Data("hello".utf8))
        #expect(echo.value(forHeader: "x-b") == "2")
    }

    @Test("decodes chunked request bodies and records the framing in the raw bytes")
    func chunkedRequest() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/upload") { .text("got \($0.body.count)") }
        let raw =
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
        let connection = try RawConnection(port: server.port)
        try connection.send(raw)
        #expect(String(decoding: try connection.readResponse().body, as: UTF8.self) == "got 11")
        let request = try #require(server.requests.first)
        #expect(request.bodyText == "hello world")
        #expect(request.raw == Data(raw.utf8))
    }

    @Test("with discardsBodies, a large body is counted, not kept")
    func discardsBodies() throws {
        let server = try LoopbackServer(configuration: .init(maximumBodyBytes: .max, discardsBodies: true))
        defer { server.stop() }
        server.route("POST", "/sink") { .text("\($0.bodyLength)") }
        let connection = try RawConnection(port: server.port)
        let size = 5 * 1024 * 1024 + 3
        let head = "POST /sink HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n"
        try connection.send(Data(head.utf8) + Data(repeating: 0x42, count: size))
        #expect(try connection.readResponse().body == Data("\(size)".utf8))
        let request = try #require(server.requests.first)
        #expect(request.body.isEmpty)
        #expect(request.bodyLength == size)
        #expect(request.raw == Data(head.utf8))
    }

    @Test("with discardsBodies, a large chunked body is counted, not kept, whatever pieces it arrives in")
    func discardsChunkedBodies() throws {
        let server = try LoopbackServer(configuration: .init(maximumBodyBytes: .max, discardsBodies: true))
        defer { server.stop() }
        server.route("POST", "/sink") { .text("\($0.bodyLength)") }
        let connection = try RawConnection(port: server.port)
        let head = "POST /sink HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = Data(repeating: 0x42, count: 1024 * 1024 + 7)
        var framing = Data(head.utf8)
        var wire = Data(head.utf8)
        for _ in 0..<5 {
            let sizeLine = Data((String(chunk.count, radix: 16) + "\r\n").utf8)
            framing += sizeLine + Data("\r\n".utf8)
            wire += sizeLine + chunk + Data("\r\n".utf8)
        }
        framing += Data("0\r\n\r\n".utf8)
        wire += Data("0\r\n\r\n".utf8)
        // Sent in pieces that split chunks, size lines and CRLFs at odd places.
        var offset = 0
        while offset < wire.count {
            let end = min(wire.count, offset + 333_331)
            try connection.send(wire[offset..<end])
            offset = end
        }
        #expect(try connection.readResponse().body == Data("\(5 * chunk.count)".utf8))
        let request = try #require(server.requests.first)
        #expect(request.body.count == 0)
        #expect(request.bodyLength == 5 * chunk.count)
        // Only the head and the chunks' framing are kept. (Compared as a Bool: on a failure, Swift
        // Testing's diff of two values megabytes long would take minutes.)
        let keptOnlyFraming = request.raw == framing
        #expect(
            keptOnlyFraming, "kept \(request.raw.count) raw bytes, not the \(framing.count) of the framing")
    }

    @Test("with readRateLimit, a body arrives slowly but whole; receivedByteCount shows its progress")
    func slowReader() throws {
        let server = try LoopbackServer(configuration: .init(readRateLimit: 128 * 1024))
        defer { server.stop() }
        server.route("POST", "/sink") { .text("\($0.body.count)") }
        let connection = try RawConnection(port: server.port)
        let size = 512 * 1024
        let head = Data("POST /sink HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n".utf8)
        try connection.send(head + Data(repeating: 0x42, count: size), timeout: 30)
        #expect(server.waitForReceivedBytes(atLeast: 64 * 1024, timeout: 30))
        // About four seconds of reading are still to come.
        #expect(server.requests.isEmpty)
        #expect(server.receivedByteCount < head.count + size)
        #expect(try connection.readResponse(timeout: 30).body == Data("\(size)".utf8))
        #expect(server.receivedByteCount == head.count + size)
    }

    @Test("with pausesReadingAfter, reading stops at exactly that many bytes until resumeReading()")
    func pausedReader() throws {
        let server = try LoopbackServer(configuration: .init(pausesReadingAfter: 64 * 1024))
        defer { server.stop() }
        server.route("POST", "/sink") { .text("\($0.body.count)") }
        let connection = try RawConnection(port: server.port)
        let size = 256 * 1024
        let head = Data("POST /sink HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n".utf8)
        try connection.send(head + Data(repeating: 0x42, count: size), timeout: 30)
        #expect(server.waitForReceivedBytes(atLeast: 64 * 1024, timeout: 30))
        #expect(server.receivedByteCount == 64 * 1024)
        #expect(server.requests.isEmpty)
        server.resumeReading()
        #expect(try connection.readResponse(timeout: 30).body == Data("\(size)".utf8))
        #expect(server.receivedByteCount == head.count + size)
    }

    @Test("answers Expect: 100-continue before the body arrives")
    func expectContinue() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/upload") { .text($0.bodyText) }
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(try connection.readResponse().status == 100)
        try connection.send("abc")
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.body == Data("abc".utf8))
    }

    @Test("keeps connections alive across requests, including pipelined ones")
    func keepAlive() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/n") { .text($0.query ?? "") }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /n?1 HTTP/1.1\r\nHost: x\r\n\r\nGET /n?2 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().body == Data("1".utf8))
        #expect(try connection.readResponse().body == Data("2".utf8))
        try connection.send("GET /n?3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let last = try connection.readResponse()
        #expect(last.body == Data("3".utf8))
        #expect(last.value(forHeader: "Connection") == "close")
        #expect(try connection.readUntilClosed().isEmpty)
        #expect(Set(server.requests.map(\.connectionID)).count == 1)
        #expect(server.acceptedConnectionCount == 1)
    }

    @Test("HTTP/1.0 requests close the connection after the response")
    func http10() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/") { _ in .text("old") }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET / HTTP/1.0\r\n\r\n")
        #expect(try connection.readResponse().body == Data("old".utf8))
        #expect(try connection.readUntilClosed().isEmpty)
    }

    @Test("HEAD gets the headers of the GET response and no body")
    func head() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/doc") { _ in .text("twelve bytes") }
        let connection = try RawConnection(port: server.port)
        try connection.send("HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\nGET /doc HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(toHead: true)
        #expect(head.value(forHeader: "Content-Length") == "12")
        #expect(head.body.isEmpty)
        // The next response starts right after the head: no body bytes were sent for HEAD.
        #expect(try connection.readResponse().body == Data("twelve bytes".utf8))
    }

    @Test("sends chunked responses when asked")
    func chunkedResponse() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/c") { _ in .text("abcdefghij").chunked(chunkSize: 4) }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let wire = String(decoding: try connection.readUntilClosed(), as: UTF8.self)
        #expect(wire.contains("Transfer-Encoding: chunked\r\n"))
        #expect(!wire.contains("Content-Length"))
        #expect(wire.hasSuffix("\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n2\r\nij\r\n0\r\n\r\n"))
    }

    @Test("serves at least 64 connections at the same time")
    func concurrentConnections() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let count = 64
        // Every handler blocks until all requests have arrived: only truly concurrent
        // connections can get there.
        server.route("/wait/:id") { [weak server] request in
            let allArrived = server?.waitForRequests(count: count, timeout: 20) ?? false
            return .text(allArrived ? request.pathParameters["id"]! : "timed out")
        }
        let connections = try (0..<count).map { _ in try RawConnection(port: server.port) }
        for (id, connection) in connections.enumerated() {
            try connection.send("GET /wait/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        for (id, connection) in connections.enumerated() {
            #expect(try connection.readResponse(timeout: 30).body == Data("\(id)".utf8))
        }
        #expect(server.acceptedConnectionCount == count)
        #expect(Set(server.requests.map(\.connectionID)).count == count)
    }

    @Test("a second instance listens on another port and records separately")
    func secondInstance() throws {
        let first = try LoopbackServer()
        let second = try LoopbackServer()
        defer {
            first.stop()
            second.stop()
        }
        #expect(first.port != second.port)
        second.route("/where") { _ in .text("second") }
        let connection = try RawConnection(port: second.port)
        try connection.send("GET /where HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().body == Data("second".utf8))
        #expect(first.requests.isEmpty)
        #expect(second.requests.count == 1)
    }

    @Test("sees the client hang up")
    func clientHangUp() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readResponse()
        #expect(server.openConnectionCount == 1)
        connection.close()
        #expect(server.waitUntilNoOpenConnections())
    }
}
