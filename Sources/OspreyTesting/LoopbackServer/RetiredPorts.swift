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
/// process; there are tens of thousands of ephemeral ports and a suite uses a few thousand. A port
/// a test stopped explicitly is also held by a bound socket, against other processes.
enum RetiredPorts {
    private static let ports = Locked(Set<UInt16>())

    /// Sockets bound, without listening, to ports of servers a test stopped: open for the life of
    /// the process.
    private static let held = Locked([UInt16: Int32]())

    /// Marks `port` as one no later server may listen on.
    static func retire(_ port: UInt16) {
        ports.withLock { _ = $0.insert(port) }
    }

    /// Binds a socket to the retired `port` without listening, once its listener is closed:
    /// other processes draw ports too (the Python servers the suites start), and the kernel gives
    /// none of them a bound port, so a connection to it stays refused. When another process took
    /// the port in the moment between, only this process passes it over.
    static func hold(_ port: UInt16) {
        held.withLock { held in
            guard held[port] == nil, let fd = Socket.holdWithoutListening(port: port) else { return }
            held[port] = fd
        }
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
