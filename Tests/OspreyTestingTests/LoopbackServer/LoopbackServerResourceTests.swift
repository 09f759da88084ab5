import Foundation
import OspreyTesting
import Testing

@Suite("Loopback server: no leaked descriptors or threads", .serialized)
struct LoopbackServerResourceTests {
    /// Open descriptors of this process.
    private static func openDescriptorCount() throws -> Int {
        #if os(Linux)
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        #else
            try FileManager.default.contentsOfDirectory(atPath: "/dev/fd").count
        #endif
    }

    @Test("200 start/stop cycles with a connection each leave the descriptor count unchanged")
    func descriptorsAreReleased() throws {
        let cycles = 200
        func cycle() throws {
            let server = try LoopbackServer()
            server.route("/") { _ in .text("ok") }
            let connection = try RawConnection(port: server.port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try connection.readResponse()
            server.stop()
            connection.close()
        }
        try cycle()  // warm-up: first-use allocations of Foundation and the test runner
        let before = try Self.openDescriptorCount()
        for _ in 0..<cycles { try cycle() }
        let after = try Self.openDescriptorCount()
        // Each cycle opens four descriptors in the server (listener, two pipe ends, the accepted
        // socket). Other suites run in parallel and may hold a few sockets at the moment of
        // either count, so allow a small margin far below one descriptor per cycle.
        #expect(after - before < cycles / 10, "before: \(before), after: \(after)")
    }

    #if os(Linux)
        @Test("stop() joins the server's threads")
        func threadsAreJoined() throws {
            func threadNames() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap {
                    try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                }
            }
            let server = try LoopbackServer()
            let connections = try (0..<8).map { _ in try RawConnection(port: server.port) }
            for connection in connections { try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(server.waitForRequests(count: 8))
            // The server names its threads `lb<port>.accept` and `lb<port>.<connection id>`.
            let prefix = "lb\(server.port)."
            #expect(try threadNames().filter { $0.hasPrefix(prefix) }.count == 9)
            server.stop()
            #expect(try threadNames().filter { $0.hasPrefix(prefix) }.isEmpty)
            _ = connections
        }
    #endif
}
