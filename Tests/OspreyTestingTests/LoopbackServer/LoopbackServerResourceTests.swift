import Foundation
import OspreyTestSupport
import Testing

@testable import OspreyTesting

@Suite("Loopback server: no leaked descriptors or threads", .onItsOwnThread, .serialized)
struct LoopbackServerResourceTests {
    #if os(Linux)
        /// What a descriptor of this process refers to (`socket:[inode]`, `pipe:[inode]`), which
        /// stays unique while it is open: unlike descriptor numbers, never reused by other tests
        /// running in parallel.
        private static func identity(of fd: Int32) -> String? {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
        }

        private static func openIdentities() throws -> Set<String> {
            Set(
                try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
                    .compactMap(identity))
        }

        @Test("200 start/stop cycles close every descriptor the server opened")
        func descriptorsAreReleased() throws {
            var used: Set<String> = []
            for _ in 0..<200 {
                let server = try LoopbackServer()
                server.route("/") { _ in .text("ok") }
                let connection = try RawConnection(port: server.port)
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try connection.readResponse()
                // Listener, both ends of the wake pipe, and the accepted connection.
                let descriptors = server.openDescriptors
                #expect(descriptors.count == 4)
                used.formUnion(descriptors.compactMap(Self.identity))
                server.stop()
                #expect(server.openDescriptors.isEmpty)
                connection.close()
            }
            // Three identities a cycle: both ends of a pipe share one.
            #expect(used.count == 600)
            #expect(used.isDisjoint(with: try Self.openIdentities()))
        }
    #endif

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
