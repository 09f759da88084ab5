import Foundation
import OspreyTestSupport
import OspreyTesting
import Testing

/// Each fault is checked on the bytes a raw client receives. Waits are checked only as lower
/// bounds ("nothing arrived yet"), which a slow machine cannot break.
@Suite("Loopback server: scripted faults", .onItsOwnThread)
struct LoopbackServerFaultTests {
    private func exchange(
        _ response: LoopbackServer.Response,
        _ check: (LoopbackServer, RawConnection) throws -> Void
    ) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/fault") { _ in response }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /fault HTTP/1.1\r\nHost: x\r\n\r\n")
        try check(server, connection)
    }

    @Test("delays the status line")
    func delayedHead() throws {
        try exchange(.text("late").delayingHead(by: 1)) { _, connection in
            #expect(throws: RawConnection.Failure.timedOut(received: Data())) {
                try connection.receiveAvailable(timeout: 0.3)
            }
            let response = try connection.readResponse()
            #expect(response.body == Data("late".utf8))
        }
    }

    @Test("sees a client hang up during a delay")
    func hangUpDuringDelay() throws {
        try exchange(.text("late").delayingHead(by: 3600)) { server, connection in
            #expect(server.waitForRequests(count: 1))
            connection.close()
            #expect(server.waitUntilNoOpenConnections())
        }
    }

    @Test("stalls mid-body, then sends the rest")
    func stalledBody() throws {
        try exchange(.text("0123456789").pausingBody(afterBytes: 4, for: 1)) { _, connection in
            var received = try connection.receiveAvailable()
            while !String(decoding: received, as: UTF8.self).hasSuffix("0123") {
                received += try connection.receiveAvailable()
            }
            #expect(throws: RawConnection.Failure.self) { try connection.receiveAvailable(timeout: 0.3) }
            let rest = try connection.receiveAvailable()
            #expect(String(decoding: rest, as: UTF8.self) == "456789")
        }
    }

    @Test("drips the body in pieces")
    func drip() throws {
        try exchange(.text("abcdef").dripping(chunkSize: 2, every: 0.05)) { _, connection in
            let response = try connection.readResponse()
            #expect(response.body == Data("abcdef".utf8))
            #expect(response.value(forHeader: "Content-Length") == "6")
        }
    }

    @Test("closes mid-body with Content-Length promising more")
    func closeMidBody() throws {
        try exchange(.text("0123456789").closingConnection(afterBodyBytes: 3)) { _, connection in
            let wire = String(decoding: try connection.readUntilClosed(), as: UTF8.self)
            #expect(wire.contains("Content-Length: 10\r\n"))
            #expect(wire.contains("Connection: close\r\n"))
            #expect(wire.hasSuffix("\r\n\r\n012"))
        }
    }

    @Test("closes mid-body of a chunked response without the last chunk")
    func closeMidChunkedBody() throws {
        try exchange(.text("0123456789").chunked(chunkSize: 4).closingConnection(afterBodyBytes: 6)) {
            _, connection in
            let wire = String(decoding: try connection.readUntilClosed(), as: UTF8.self)
            #expect(wire.hasSuffix("\r\n\r\n4\r\n0123\r\n2\r\n45\r\n"))
        }
    }

    @Test("declares a Content-Length larger than the body, then closes")
    func overstatedLength() throws {
        try exchange(.text("short").overstatingContentLength(by: 100)) { _, connection in
            #expect(throws: RawConnection.Failure.closedEarly(received: Data("short".utf8))) {
                try connection.readResponse()
            }
        }
    }

    @Test("streams an endless body until the client leaves")
    func endlessBody() throws {
        try exchange(.text("").endlessBody(chunk: Data(repeating: 0x41, count: 1024))) { server, connection in
            var total = 0
            while total < 4 * 1024 * 1024 {
                total += try connection.receiveAvailable().count
            }
            connection.close()
            #expect(server.waitUntilNoOpenConnections())
        }
    }

    @Test("stop() ends an endless body and stalled responses at once")
    func stopInterrupts() throws {
        let server = try LoopbackServer()
        server.route("/endless") { _ in .text("").endlessBody(every: 0.01) }
        server.route("/stalled") { _ in .text("x").delayingHead(by: 3600) }
        let endless = try RawConnection(port: server.port)
        let stalled = try RawConnection(port: server.port)
        let idle = try RawConnection(port: server.port)
        try endless.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
        try stalled.send("GET /stalled HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(server.waitForRequests(count: 2))
        server.stop()
        #expect(server.openConnectionCount == 0)
        _ = try endless.readUntilClosed()
        #expect(try stalled.readUntilClosed().isEmpty)
        #expect(try idle.readUntilClosed().isEmpty)
    }

    @Test(
        "redirects with any 3xx and the Location given",
        arguments: [
            (301, "http://localhost:1/elsewhere"), (302, "/absolute/path"), (303, "relative"),
            (307, "/a?b=c"),
            (308, "https://example.invalid/"),
        ])
    func redirect(status: Int, location: String) throws {
        try exchange(.redirect(status, to: location)) { _, connection in
            let response = try connection.readResponse()
            #expect(response.status == status)
            #expect(response.value(forHeader: "Location") == location)
            #expect(response.value(forHeader: "Content-Length") == "0")
        }
    }

    @Test("answers 401 with a Basic challenge and a body")
    func basicChallenge() throws {
        try exchange(.basicChallenge(realm: "r", body: "nope")) { _, connection in
            let response = try connection.readResponse()
            #expect(response.status == 401)
            #expect(response.value(forHeader: "WWW-Authenticate") == "Basic realm=\"r\"")
            #expect(response.body == Data("nope".utf8))
        }
    }

    @Test("a close-delimited body ends when the server closes")
    func closeDelimited() throws {
        try exchange(.text("until close").closeDelimited()) { _, connection in
            let response = try connection.readResponse()
            #expect(response.value(forHeader: "Content-Length") == nil)
            #expect(response.body == Data("until close".utf8))
        }
    }
}
