/// The protocol side of an open WebSocket (RFC 6455 §5.5, §7): what to deliver and what to write
/// for each event, as a value whose transitions return the actions to run. It does no I/O and
/// takes no lock; the connection that owns it runs the actions outside its lock, in order.
package struct WebSocketStateMachine: Sendable {
    private enum State: Equatable {
        /// Messages flow both ways.
        case open
        /// This side sent a close frame and waits for the server's; messages still arrive.
        case closeSent(WebSocketCloseCode, reason: String)
        /// Both close frames were exchanged, or the connection failed: nothing more is read
        /// or written.
        case closed
    }

    /// What the owner must do, in this order.
    package struct Actions: Equatable, Sendable {
        /// Bytes to write to the connection.
        package var write: [UInt8] = []
        /// Messages for the application.
        package var deliver: [WebSocketMessage] = []
        /// A pong arrived (the keep-alive is satisfied).
        package var pongReceived = false
        /// Close the connection after the write: the socket is done.
        package var closeConnection = false
        /// How the socket ended, once it has.
        package var outcome: Result<WebSocketClose, WebSocketError>?
    }

    private var state = State.open
    private var reader: WebSocketReader
    private let writer = WebSocketFrameWriter(masks: true)
    /// Whether a keep-alive ping is unanswered.
    private var pingOutstanding = false
    private var pingsSent: UInt64 = 0

    /// Compresses messages sent, when permessage-deflate was negotiated (and zlib can write the
    /// window the server allows).
    private let deflater: MessageDeflater?
    /// The largest payload of a frame sent; nil sends every message in one frame.
    private let outgoingFrameSize: Int?

    package init(maximumFrameSize: Int, maximumMessageSize: Int, outgoingFrameSize: Int? = nil) {
        self.init(
            maximumFrameSize: maximumFrameSize, maximumMessageSize: maximumMessageSize, deflate: nil,
            outgoingFrameSize: outgoingFrameSize)
    }

    /// A machine for the fuzz target: with permessage-deflate's defaults when `deflate`.
    package static func fuzzing(frameLimit: Int, messageLimit: Int, deflate: Bool) -> WebSocketStateMachine {
        WebSocketStateMachine(
            maximumFrameSize: frameLimit, maximumMessageSize: messageLimit,
            deflate: deflate ? PerMessageDeflate() : nil)
    }

    /// A machine that speaks permessage-deflate as `deflate` says, when given.
    init(
        maximumFrameSize: Int, maximumMessageSize: Int, deflate: PerMessageDeflate?,
        outgoingFrameSize: Int? = nil
    ) {
        self.outgoingFrameSize = outgoingFrameSize
        let inflater = deflate.flatMap {
            MessageInflater(windowBits: $0.serverMaxWindowBits, resetsEachMessage: $0.serverNoContextTakeover)
        }
        reader = WebSocketReader(
            maximumFrameSize: maximumFrameSize, maximumMessageSize: maximumMessageSize, inflater: inflater)
        deflater = deflate.flatMap {
            MessageDeflater(windowBits: $0.clientMaxWindowBits, resetsEachMessage: $0.clientNoContextTakeover)
        }
    }

    /// Whether messages may still be sent.
    var isOpen: Bool { state == .open }

    /// Whether the socket has ended.
    package var isClosed: Bool { state == .closed }

    /// How many bytes read from the connection are held (unread frames and a partial message).
    package var bufferedCount: Int { reader.bufferedCount }

    /// Bytes arrived: the messages to deliver, the pongs and close replies to write.
    package mutating func received(_ bytes: UnsafeRawBufferPointer) -> Actions {
        var actions = Actions()
        guard state != .closed else { return actions }
        reader.append(bytes)
        do {
            while state != .closed, let inbound = try reader.next() {
                take(inbound, into: &actions)
            }
        } catch {
            fail(error, into: &actions)
        }
        return actions
    }

    /// Bytes arrived, as an array.
    package mutating func received(_ bytes: [UInt8]) -> Actions {
        bytes.withUnsafeBytes { received($0) }
    }

    private mutating func take(_ inbound: WebSocketInbound, into actions: inout Actions) {
        switch inbound {
        case .message(let message):
            actions.deliver.append(message)
        case .ping(let payload):
            // Answered while this side may still write; after its close frame it writes nothing.
            if state == .open { writer.append(.pong, payload: payload, to: &actions.write) }
        case .pong:
            pingOutstanding = false
            actions.pongReceived = true
        case .close(let code, let reason):
            switch state {
            case .open:
                // The server closes first: echo its code (none when it sent none), then wait
                // for it to close the connection.
                let payload = code.map { WebSocketFrameWriter.closePayload(code: $0, reason: "") } ?? []
                writer.append(.close, payload: payload, to: &actions.write)
                state = .closed
                actions.outcome = .success(
                    WebSocketClose(code: code ?? .noStatusReceived, reason: reason, initiator: .server))
            case .closeSent:
                state = .closed
                actions.outcome = .success(
                    WebSocketClose(code: code ?? .noStatusReceived, reason: reason, initiator: .client))
            case .closed:
                break
            }
            actions.closeConnection = true
        }
    }

    /// The frame of a message to send.
    /// - Returns: the bytes to write, or nil when the socket is closing or closed.
    mutating func send(_ message: WebSocketMessage) -> [UInt8]? {
        guard state == .open else { return nil }
        switch message {
        case .text(let text):
            var text = text
            return text.withUTF8 { frame(.text, UnsafeRawBufferPointer($0)) }
        case .binary(let data):
            return data.withUnsafeBytes { frame(.binary, $0) }
        }
    }

    /// A message's frames: compressed when permessage-deflate is on and the message is long
    /// enough, else as it is; in fragments of at most `outgoingFrameSize` bytes when set (a
    /// compressed message is compressed whole, then split: RFC 7692 §6.1).
    private func frame(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        if let deflater, payload.count >= MessageDeflater.threshold,
            let compressed = deflater.compress(payload)
        {
            compressed.withUnsafeBytes {
                writer.appendMessage(
                    opcode, payload: $0, isCompressed: true, fragmentSize: outgoingFrameSize, to: &output)
            }
        } else {
            writer.appendMessage(opcode, payload: payload, fragmentSize: outgoingFrameSize, to: &output)
        }
        return output
    }

    /// Starts the closing handshake: the close frame to write (nothing when already closing).
    mutating func close(code: WebSocketCloseCode, reason: String) -> Actions {
        var actions = Actions()
        guard state == .open else { return actions }
        writer.append(
            .close, payload: WebSocketFrameWriter.closePayload(code: code, reason: reason), to: &actions.write
        )
        state = .closeSent(code, reason: reason)
        return actions
    }

    /// The keep-alive's timer fired: a ping to write, or, when the last one is still unanswered,
    /// the end of a connection that stopped answering.
    mutating func keepAliveDue() -> Actions {
        var actions = Actions()
        guard state == .open else { return actions }
        guard !pingOutstanding else {
            // A close frame in case the server still reads; the connection is not kept waiting.
            let reason = "no pong within the keep-alive timeout"
            writer.append(
                .close, payload: WebSocketFrameWriter.closePayload(code: .goingAway, reason: reason),
                to: &actions.write)
            state = .closed
            actions.closeConnection = true
            actions.outcome = .failure(.connectionLost(reason: reason))
            return actions
        }
        pingOutstanding = true
        pingsSent += 1
        let payload = (0..<8).map { UInt8(truncatingIfNeeded: pingsSent >> (56 - 8 * UInt64($0))) }
        writer.append(.ping, payload: payload, to: &actions.write)
        return actions
    }

    /// The connection ended (the server closed it, or it failed): the socket's outcome, unless
    /// it already had one.
    mutating func connectionEnded(error: (any Error)?) -> Actions {
        var actions = Actions()
        guard state != .closed else { return actions }
        state = .closed
        actions.outcome = .failure(
            .connectionLost(reason: error.map { "\($0)" } ?? "the connection closed without a close frame"))
        return actions
    }

    /// Fails the connection (RFC 6455 §7.1.7): a close frame with the violation's code, then
    /// the connection closes without waiting for an answer.
    private mutating func fail(_ violation: WebSocketViolation, into actions: inout Actions) {
        if state == .open {
            writer.append(
                .close,
                payload: WebSocketFrameWriter.closePayload(code: violation.code, reason: violation.reason),
                to: &actions.write)
        }
        state = .closed
        actions.closeConnection = true
        actions.outcome = .failure(.protocolViolation(code: violation.code, reason: violation.reason))
    }
}
