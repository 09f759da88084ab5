import Foundation
import Osprey

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The ports of this process's stopped loopback servers, never handed to a new one.
///
/// Tests stop a server to see how a client meets a port where no one listens: a refused
/// connection, a reconnecting event source giving up. The kernel hands out ephemeral ports afresh,
/// so with hundreds of servers started side by side a new server could take the stopped one's
/// port, and the "refused" request would be answered by another test's server (a CI run saw a
/// 404 where a refusal was expected). A stopped server's port stays retired for the life of the
/// process; there are tens of thousands of ephemeral ports and a suite uses a few thousand.
enum RetiredPorts {
    private static let ports = Locked(Set<UInt16>())

    /// Marks `port` as one no later server may listen on.
    static func retire(_ port: UInt16) {
        ports.withLock { _ = $0.insert(port) }
    }

    /// Opens a listening socket on 127.0.0.1 whose port no stopped server of this process had.
    ///
    /// A socket that drew a retired port is held open while the next one is drawn, so the
    /// kernel cannot give the same port again, and closed once a fresh one is found.
    /// - Parameter draw: opens a listener on a port of the kernel's choosing (replaced in tests).
    static func listenOnFreshPort(
        draw: () throws -> (fd: Int32, port: UInt16) = { try Socket.listenOnLoopback() }
    ) throws -> (fd: Int32, port: UInt16) {
        var drawnAgain: [Int32] = []
        defer { for fd in drawnAgain { close(fd) } }
        for _ in 0..<64 {
            let listener = try draw()
            guard ports.withLock({ $0.contains(listener.port) }) else { return listener }
            drawnAgain.append(listener.fd)
        }
        // 64 retired ports in a row: the range is nearly used up; take what the kernel gives.
        return try draw()
    }
}
