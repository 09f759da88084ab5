import Foundation

/// A ``WebSocketMessageTask`` seen as an ``UpgradedConnection``, so that one
/// ``WebSocketConnection`` (its state machine, limits, timers, inbox and backpressure) drives
/// both kinds of socket.
///
/// The task speaks in messages, the machine in frames: each message the task receives goes up
/// as the frame that would have carried it, and each frame the machine writes comes down as the
/// call it stands for. A message goes to ``WebSocketMessageTask/send(_:completion:)`` (fragments
/// joined first), a ping to ``WebSocketMessageTask/sendPing(_:)`` whose answer goes up as a pong,
/// the client's close to ``WebSocketMessageTask/close(code:reason:)``; a pong is dropped (the
/// task answers pings itself), as is the close that echoes the server's (the task echoed it).
/// When the task's reading fails after the server's close, that close goes up as a frame.
///
/// Reading pauses by not asking the task for the next message. The receiver is called on one
/// serial queue, in order.
final class MessageTaskConnection: UpgradedConnection, Sendable {
    private let task: any WebSocketMessageTask
    private let calls = DispatchQueue(label: "osprey.websocket.task")
    private let state = Locked(State())

    private struct State {
        var receiver: (any UpgradedConnectionReceiver)?
        var reading = true
        /// A ``WebSocketMessageTask/receive(_:)`` is waiting for its message.
        var receiving = false
        var ended = false
        /// The close the client sent through the task, if it did.
        var clientClose: (code: WebSocketCloseCode, reason: Data)?
        /// Reads what the machine writes (masked client frames), fragments joined.
        var frames = WebSocketReader(
            maximumFrameSize: .max, maximumMessageSize: .max, expectsMaskedFrames: true)
    }

    /// Writes the frames a server would (unmasked).
    private static let writer = WebSocketFrameWriter(masks: false)

    init(task: any WebSocketMessageTask) {
        self.task = task
    }

    func start(_ receiver: any UpgradedConnectionReceiver) {
        state.withLock { $0.receiver = receiver }
        receiveNext()
    }

    func write(_ bytes: [UInt8], written: (@Sendable ((any Error)?) -> Void)?) {
        let parsed = state.withLock { state -> Result<[WebSocketInbound], WebSocketViolation>? in
            guard !state.ended else { return nil }
            state.frames.append(bytes)
            var inbound: [WebSocketInbound] = []
            do throws(WebSocketViolation) {
                while let next = try state.frames.next() { inbound.append(next) }
            } catch {
                return .failure(error)
            }
            return .success(inbound)
        }
        let inbound: [WebSocketInbound]
        switch parsed {
        case nil:
            // The connection ended first: nothing goes out.
            report(written, WebSocketError.closed)
            return
        case .success(let all): inbound = all
        case .failure(let violation):
            // The machine wrote a frame it should not have: nothing of it is sent.
            report(written, WebSocketError.protocolViolation(code: violation.code, reason: violation.reason))
            return
        }
        let sends = Locked((waiting: 1, error: (any Error)?.none))
        let sent: @Sendable ((any Error)?) -> Void = { [self] error in
            let done = sends.withLock { sends -> Bool in
                if sends.error == nil { sends.error = error }
                sends.waiting -= 1
                return sends.waiting == 0
            }
            if done { report(written, sends.withLock { $0.error }) }
        }
        for frame in inbound {
            switch frame {
            case .message(let message):
                sends.withLock { $0.waiting += 1 }
                task.send(message, completion: sent)
            case .ping(let payload):
                task.sendPing { [weak self] error in
                    guard error == nil else { return }
                    self?.deliver(Self.frame(.pong, payload))
                }
            case .pong:
                break
            case .close(let code, let reason):
                // The echo of the server's close: the task sent its own.
                guard task.serverClose == nil else { break }
                let close = (code: code ?? .normal, reason: Data(reason.utf8))
                state.withLock { $0.clientClose = close }
                task.close(code: close.code, reason: close.reason)
            }
        }
        sent(nil)
    }

    func setReading(_ reading: Bool) {
        state.withLock { $0.reading = reading }
        if reading { receiveNext() }
    }

    func close() {
        // Ended first: what the abort makes the task's reading report is not the socket's story.
        let receiver = markEnded()
        task.abort()
        if let receiver { calls.async { receiver.ended(nil) } }
    }

    // MARK: Reading

    /// Asks the task for the next message, unless one is asked for already, reading is paused
    /// or the connection ended.
    private func receiveNext() {
        let asks = state.withLock { state -> Bool in
            guard state.reading, !state.receiving, !state.ended, state.receiver != nil else { return false }
            state.receiving = true
            return true
        }
        guard asks else { return }
        task.receive { [weak self] result in self?.received(result) }
    }

    private func received(_ result: Result<WebSocketMessage, any Error>) {
        state.withLock { $0.receiving = false }
        switch result {
        case .success(.text(let text)):
            var text = text
            deliver(text.withUTF8 { Self.frame(.text, UnsafeRawBufferPointer($0)) }, thenReceive: true)
        case .success(.binary(let data)):
            deliver(data.withUnsafeBytes { Self.frame(.binary, $0) }, thenReceive: true)
        case .failure(let error):
            // The task stops reading once the server's close arrived: that close goes up, and
            // the machine ends the socket (and this connection) as the handshake says. After the
            // client's close, the task runs the closing handshake itself and may stop reading
            // without telling the server's code: the handshake is then taken as done, with the
            // client's code.
            if let close = task.serverClose ?? state.withLock({ $0.clientClose }) {
                // Built from the bytes, not with `WebSocketFrameWriter.closePayload`, which takes a
                // String: the reader checks the server's reason as UTF-8 like any close frame's
                // (a reason over 123 bytes could not have come in one).
                var payload = [
                    UInt8(close.code.rawValue >> 8), UInt8(truncatingIfNeeded: close.code.rawValue),
                ]
                payload += close.reason.prefix(123)
                deliver(Self.frame(.close, payload))
            } else {
                end(error)
            }
        }
    }

    private static func frame(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(payload.count + 10)
        writer.append(opcode, payload: payload, to: &frame)
        return frame
    }

    private static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        payload.withUnsafeBytes { frame(opcode, $0) }
    }

    /// Returns once every call to the receiver asked for so far was made (tests).
    func drained() async {
        await withCheckedContinuation { continuation in calls.async { continuation.resume() } }
    }

    // MARK: To the receiver, in order

    /// Hands `frame` to the receiver; then, when `thenReceive`, asks the task for the next
    /// message: only after the receiver took this one, so that a pause it asked for holds before
    /// another message is read.
    private func deliver(_ frame: [UInt8], thenReceive: Bool = false) {
        let receiver = state.withLock { $0.ended ? nil : $0.receiver }
        guard let receiver else { return }
        calls.async { [self] in
            frame.withUnsafeBytes { receiver.received($0) }
            if thenReceive { receiveNext() }
        }
    }

    private func end(_ error: (any Error)?) {
        guard let receiver = markEnded() else { return }
        calls.async { receiver.ended(error) }
    }

    /// Marks the connection ended; returns the receiver to tell, the first time only. The
    /// receiver is let go of: it holds this connection, and nothing more goes to it.
    private func markEnded() -> (any UpgradedConnectionReceiver)? {
        state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            defer { state.receiver = nil }
            return state.receiver
        }
    }

    private func report(_ written: (@Sendable ((any Error)?) -> Void)?, _ error: (any Error)?) {
        guard let written else { return }
        calls.async { written(error) }
    }
}
