import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Thin wrappers over the POSIX socket calls the loopback server and the raw client need.
///
/// Everything here is non-blocking: waiting happens in `poll`, always together with the server's
/// wake-up pipe, so that `stop()` can interrupt any wait at once.
enum Socket {
    /// An error from a socket call, with the call's name and `errno`.
    typealias Failure = SystemCallFailure

    #if canImport(Darwin)
        private static let streamType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
    #else
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// Opens a TCP socket bound to 127.0.0.1:`port` (0: a port of the kernel's choosing), not
    /// listening yet (a connection to it is refused); returns the fd and the port it got.
    ///
    /// The address may be reused: a port given again may still have connections in TIME_WAIT.
    /// The kernel never picks a port bound here for another socket's ephemeral bind, reuse or not,
    /// which is what a stopped server's tombstone relies on (``RetiredPorts``).
    static func bindToLoopback(port: UInt16 = 0) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        do {
            try prepare(fd)
            var reuse: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            var address = loopbackAddress(port: port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw Failure(call: "bind", code: errno) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw Failure(call: "getsockname", code: errno) }
            return (fd, UInt16(bigEndian: address.sin_port))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Starts listening on a bound socket.
    static func listen(_ fd: Int32, backlog: Int32 = 256) throws {
        guard Foundation.listen(fd, backlog) == 0 else { throw Failure(call: "listen", code: errno) }
    }

    /// Opens a listening Unix domain socket at `path` (which must not exist yet).
    static func listenOnUnixSocket(path: String, backlog: Int32 = 256) throws -> Int32 {
        #if canImport(Darwin)
            let fd = socket(AF_UNIX, streamType, 0)
        #else
            let fd = socket(AF_UNIX, streamType, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        do {
            try prepare(fd)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            let room = MemoryLayout.size(ofValue: address.sun_path)
            guard bytes.count < room else { throw Failure(call: "bind", code: ENAMETOOLONG) }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
                buffer[bytes.count] = 0
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0 else { throw Failure(call: "bind", code: errno) }
            try listen(fd, backlog: backlog)
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Connects to 127.0.0.1:`port` (blocking connect, then switched to non-blocking mode).
    static func connectToLoopback(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "connect", code: code)
        }
        do {
            try prepare(fd)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// The TCP port of the peer of a connected IPv4 socket; 0 for another kind (a Unix socket).
    static func peerPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let read = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard read == 0, address.sin_family == sa_family_t(AF_INET) else { return 0 }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one pending connection, or returns nil when none is waiting.
    static func accept(from listener: Int32) throws -> Int32? {
        let fd = Foundation.accept(listener, nil, nil)
        guard fd >= 0 else {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED {
                return nil
            }
            throw Failure(call: "accept", code: code)
        }
        do {
            try prepare(fd)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Marks a descriptor close-on-exec and non-blocking, and keeps writes from raising SIGPIPE.
    static func prepare(_ fd: Int32) throws {
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw Failure(call: "fcntl", code: errno) }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw Failure(call: "fcntl", code: errno)
        }
        var one: Int32 = 1
        #if canImport(Darwin)
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        // Responses go out in several writes (head, then body pieces); without this, Nagle's
        // algorithm and the peer's delayed ACK hold the second write back ~40 ms.
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The outcome of waiting on a descriptor.
    enum Readiness {
        case ready
        case timedOut
        case woken
    }

    /// Waits until `fd` is readable (or writable), the timeout passes, or `wakeFD` becomes readable.
    /// A negative timeout waits forever; `fd` may be -1 to wait on the wake-up descriptor alone.
    static func wait(
        for fd: Int32,
        writable: Bool = false,
        wakeFD: Int32,
        timeout: TimeInterval = -1
    ) -> Readiness {
        let deadline = timeout < 0 ? nil : Date().addingTimeInterval(timeout)
        var descriptors = [
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: fd, events: Int16(writable ? POLLOUT : POLLIN), revents: 0),
        ]
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = deadline.timeIntervalSinceNow
                if remaining <= 0 { return .timedOut }
                milliseconds = Int32(min((remaining * 1000).rounded(.up), Double(Int32.max)))
            }
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let count = poll(&descriptors, fd < 0 ? 1 : 2, milliseconds)
            if count < 0 {
                if errno == EINTR { continue }
                return .woken
            }
            if descriptors[0].revents != 0 { return .woken }
            if count > 0 { return .ready }
        }
    }

    /// Reads what is available into `buffer` (at most `maximum` bytes); returns the count, 0 at
    /// end of stream, nil if none yet.
    static func receive(_ fd: Int32, into buffer: inout [UInt8], maximum: Int = .max) throws -> Int? {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, maximum), 0) }
        if count >= 0 { return count }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return nil }
        throw Failure(call: "recv", code: code)
    }

    /// What a look at a readable socket found, without consuming it.
    enum Peek {
        case closed
        case data
        case nothing
    }

    /// Looks at the socket without consuming anything: has the peer closed, or sent bytes?
    static func peek(_ fd: Int32) -> Peek {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK))
        if count > 0 { return .data }
        if count == 0 { return .closed }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .nothing : .closed
    }

    /// Sends as much of `bytes` as the socket takes now; returns the count, nil if it takes none.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws -> Int? {
        let count = Foundation.send(fd, bytes.baseAddress, bytes.count, sendFlags)
        if count >= 0 { return count }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return nil }
        throw Failure(call: "send", code: code)
    }

    /// Creates a connected pair of Unix stream sockets, both close-on-exec and non-blocking.
    static func makeStreamPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, streamType, 0, &ends) == 0 else {
            throw Failure(call: "socketpair", code: errno)
        }
        do {
            for fd in ends { try prepare(fd) }
        } catch {
            for fd in ends { close(fd) }
            throw error
        }
        return (ends[0], ends[1])
    }

    /// Creates a pipe whose read end becomes readable when anything is written to the write end.
    static func makeWakePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(call: "pipe", code: errno) }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    private static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }
}
