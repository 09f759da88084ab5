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

    #if canImport(Glibc)
        @Test("a stopped server's port stays bound, so no other process can listen on it")
        func stoppedPortHeld() throws {
            let server = try LoopbackServer()
            server.stop()
            server.stop()
            // What another process's listener would do to take the port: bind it, without reuse.
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = server.port.bigEndian
            address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let failure = errno
            #expect(bound == -1)
            #expect(failure == EADDRINUSE)
        }
    #endif

    @Test("a request to a stopped server's port is refused")
    func stoppedPortRefused() throws {
        let server = try LoopbackServer()
        server.stop()
        #expect(throws: SystemCallFailure.self) { try RawConnection(port: server.port) }
    }
}
