import Foundation
import Osprey

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The client's end of a mocked WebSocket: one end of a Unix socket pair, read and written by a
/// thread of its own, as a transport's loop would (its receiver is called there, one call at a
/// time). The other end is the ``LoopbackServer/WebSocketPeer`` the test's session talks through,
/// so the mock and the loopback server share one server side, and the kernel's buffers give the
/// same backpressure both ways as a real connection.
final class SocketPairConnection: UpgradedConnection, @unchecked Sendable {
    // @unchecked: `state` is locked; `fd`, `wake` and `buffer` belong to the thread once started.

    private struct PendingWrite {
        var bytes: [UInt8]
        var sent = 0
        let written: (@Sendable ((any Error)?) -> Void)?
    }

    private struct State {
        var receiver: (any UpgradedConnectionReceiver)?
        var writes: [PendingWrite] = []
        var reading = true
        var started = false
        var closing = false
        /// Set once the descriptors are closed: nothing may touch them afterwards (their numbers
        /// may already be another file's).
        var ended = false
    }

    /// The connection ended before a write could go out.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the mocked WebSocket connection is closed" }
    }

    private let fd: Int32
    private let wake: (read: Int32, write: Int32)
    private let state = Locked(State())

    /// Takes `fd` (closed when the connection ends).
    init(fd: Int32) throws {
        do {
            wake = try Socket.makeWakePipe()
        } catch {
            Foundation.close(fd)
            throw error
        }
        // A nudge never blocks, however many are waiting to be read.
        _ = fcntl(wake.write, F_SETFL, fcntl(wake.write, F_GETFL) | O_NONBLOCK)
        self.fd = fd
    }

    deinit {
        // Never started (the handshake's request ended first) and never closed.
        if !state.withLock({ $0.ended }) { closeDescriptors() }
    }

    func start(_ receiver: any UpgradedConnectionReceiver) {
        state.withLock {
            $0.receiver = receiver
            $0.started = true
        }
        let thread = Thread { [self] in run() }
        thread.name = "osprey.mock.websocket"
        thread.start()
    }

    func write(_ bytes: [UInt8], written: (@Sendable ((any Error)?) -> Void)?) {
        let accepted = state.withLock { state -> Bool in
            guard !state.ended, !state.closing else { return false }
            state.writes.append(PendingWrite(bytes: bytes, written: written))
            return true
        }
        guard accepted else {
            written?(Closed())
            return
        }
        nudge()
    }

    func setReading(_ reading: Bool) {
        state.withLock { $0.reading = reading }
        nudge()
    }

    func close() {
        let started = state.withLock { state in
            state.closing = true
            return state.started
        }
        guard started else { return finish(nil) }
        nudge()
    }

    /// Wakes the thread to look at the state again.
    private func nudge() {
        state.withLock { state in
            guard !state.ended else { return }
            var byte: UInt8 = 1
            _ = Foundation.write(wake.write, &byte, 1)
        }
    }

    private func closeDescriptors() {
        shutdown(fd, Int32(SHUT_RDWR))
        Foundation.close(fd)
        Foundation.close(wake.read)
        Foundation.close(wake.write)
    }

    /// Polls the socket for what the state asks (reading, writing) until the connection ends.
    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var outcome: (any Error)?
        loop: while true {
            let (reading, writing, closing) = state.withLock { ($0.reading, !$0.writes.isEmpty, $0.closing) }
            if closing, !writing { break }
            var events = Int16(0)
            if reading { events |= Int16(POLLIN) }
            if writing { events |= Int16(POLLOUT) }
            // Nothing asked of the socket: it is left out, or a hang-up would be reported at once,
            // again and again.
            var descriptors = [
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: events == 0 ? -1 : fd, events: events, revents: 0),
            ]
            guard poll(&descriptors, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                outcome = SystemCallFailure(call: "poll", code: errno)
                break
            }
            if descriptors[0].revents != 0 { _ = Foundation.read(wake.read, &buffer, buffer.count) }
            let ready = descriptors[1].revents
            if ready & Int16(POLLOUT) != 0 {
                do {
                    try flush()
                } catch {
                    outcome = error
                    break
                }
            }
            guard reading, ready & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            do {
                guard let count = try Socket.receive(fd, into: &buffer) else { continue }
                // The peer's session ended and closed its end.
                if count == 0 { break loop }
                let receiver = state.withLock { $0.receiver }
                buffer.withUnsafeBytes { receiver?.received(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            } catch {
                outcome = error
                break
            }
        }
        finish(outcome)
    }

    /// Writes what the socket takes now; tells each write that went out whole.
    private func flush() throws {
        while true {
            guard var first = state.withLock({ $0.writes.first }) else { return }
            let count = try first.bytes.withUnsafeBytes {
                try Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[first.sent...]))
            }
            guard let count else { return }
            first.sent += count
            let done = first.sent == first.bytes.count
            state.withLock { state in
                if done { state.writes.removeFirst() } else { state.writes[0].sent = first.sent }
            }
            guard done else { return }
            first.written?(nil)
        }
    }

    /// Closes the socket; writes still waiting learn they never went out, and the receiver that
    /// the connection ended.
    private func finish(_ error: (any Error)?) {
        typealias Ending = (receiver: (any UpgradedConnectionReceiver)?, unsent: [PendingWrite])
        let ending = state.withLock { state -> Ending? in
            guard !state.ended else { return nil }
            state.ended = true
            // Under the lock: a nudge never writes to a closed (or reused) descriptor.
            closeDescriptors()
            // The receiver holds this connection: letting go of it breaks the cycle.
            defer { (state.writes, state.receiver) = ([], nil) }
            return (state.receiver, state.writes)
        }
        guard let (receiver, unsent) = ending else { return }
        for write in unsent { write.written?(error ?? Closed()) }
        receiver?.ended(error)
    }
}
