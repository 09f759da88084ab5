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
/// a test stopped explicitly is also held by a socket bound to it that never listens (its
/// tombstone), against other processes; a draw that gets a retired port never listens on it either.
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
    /// - Throws: why the port could not be held (taken by another process, or no descriptor left).
    static func hold(_ port: UInt16) throws {
        try held.withLock { held in
            guard held[port] == nil else { return }
            held[port] = try Socket.bindToLoopback(port: port).fd
        }
    }

    /// Opens a listening socket on 127.0.0.1 whose port no stopped server of this process had.
    ///
    /// Each draw binds a port of the kernel's choosing before it listens: one that turns out to be
    /// retired (a server stopped while it was drawn) never listens, and is kept bound as that
    /// port's tombstone, so a request to it meanwhile is still refused and the kernel cannot give
    /// the port again.
    /// - Parameter draw: binds a socket, without listening, to a port of the kernel's choosing
    ///   (replaced in tests).
    static func listenOnFreshPort(
        draw: () throws -> (fd: Int32, port: UInt16) = { try Socket.bindToLoopback() }
    ) throws -> (fd: Int32, port: UInt16) {
        for attempt in 0..<65 {
            let bound = try draw()
            // 64 retired ports in a row: the range is nearly used up; take what the kernel gives.
            if attempt < 64, ports.withLock({ $0.contains(bound.port) }) {
                keep(bound.fd, asTombstoneOf: bound.port)
                continue
            }
            do {
                try Socket.listen(bound.fd)
            } catch {
                close(bound.fd)
                throw error
            }
            return bound
        }
        throw SystemCallFailure(call: "bind", code: EADDRINUSE)
    }

    /// The socket holding `port` for this process, if one does (tests).
    static func tombstone(of port: UInt16) -> Int32? {
        held.withLock { $0[port] }
    }

    /// Keeps a bound socket as `port`'s tombstone, or closes it when the port has one already.
    private static func keep(_ fd: Int32, asTombstoneOf port: UInt16) {
        let kept = held.withLock { held -> Bool in
            guard held[port] == nil else { return false }
            held[port] = fd
            return true
        }
        if !kept { close(fd) }
    }
}
