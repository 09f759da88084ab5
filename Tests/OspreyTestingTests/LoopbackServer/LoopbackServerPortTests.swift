import Foundation
import Testing

@testable import OspreyTesting

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("Loopback server: a stopped server's port is never another's")
struct LoopbackServerPortTests {
    @Test("a port drawn again after its server stopped is passed over, and its socket closed")
    func retiredPortPassedOver() throws {
        let stopped = try LoopbackServer()
        let port = stopped.port
        stopped.stop()
        // The kernel gives the stopped port first, then a fresh one: what a busy suite can meet.
        let first = try Socket.listenOnLoopback()
        let firstSocket = identity(of: first.fd)
        var draws: [(fd: Int32, port: UInt16)] = [(first.fd, port), try Socket.listenOnLoopback()]
        let listener = try RetiredPorts.listenOnFreshPort { draws.removeFirst() }
        defer { close(listener.fd) }
        #expect(listener.port != port)
        #expect(draws.isEmpty)
        #if os(Linux)
            // Compared by what the descriptor refers to: its number may be reused at once.
            #expect(firstSocket != nil)
            #expect(identity(of: first.fd) != firstSocket, "the passed-over socket is closed")
        #endif
    }

    /// What a descriptor refers to (`socket:[inode]`), unique while it is open.
    private func identity(of fd: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    }

    @Test("a request to a stopped server's port is refused")
    func stoppedPortRefused() throws {
        let server = try LoopbackServer()
        server.stop()
        #expect(throws: SystemCallFailure.self) { try RawConnection(port: server.port) }
    }
}
