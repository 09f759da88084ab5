import Foundation
import Osprey

extension LoopbackServer {
    /// The server's side of a WebSocket (see ``LoopbackServer/webSocket(_:subprotocol:acceptsCompression:session:)``):
    /// reads the client's masked frames and writes unmasked ones, on the connection's thread.
    ///
    /// Besides whole messages it can write anything at all (``sendRaw(_:)``), so that tests can
    /// see how a client meets a broken or hostile server.
    public final class WebSocketPeer: @unchecked Sendable {
        // @unchecked: used by the one thread that runs the session.
        private let fd: Int32
        private let wakeFD: Int32
        private var reader: WebSocketReader
        private let writer = WebSocketFrameWriter(masks: false)
        private var buffer = [UInt8](repeating: 0, count: 64 << 10)

        /// The client's close frame, once one arrived: its code (nil for none) and reason.
        public private(set) var closeReceived: (code: WebSocketCloseCode?, reason: String)?
        /// Pings the client sent, by payload, in order.
        public private(set) var pingsReceived: [[UInt8]] = []
        /// Pongs the client sent, by payload, in order.
        public private(set) var pongsReceived: [[UInt8]] = []
        /// Whether pings are answered (with a pong of the same payload) as they arrive.
        public var answersPings = true

        /// Whether permessage-deflate was agreed on.
        public let compression: Bool

        init(fd: Int32, wakeFD: Int32, leftover: [UInt8], compression: Bool) {
            self.fd = fd
            self.wakeFD = wakeFD
            self.compression = compression
            reader =
                compression
                ? WebSocketReader(
                    maximumFrameSize: 1 << 30, maximumMessageSize: 1 << 30, expectsMaskedFrames: true,
                    inflatingWindowBits: 15)
                : WebSocketReader(
                    maximumFrameSize: 1 << 30, maximumMessageSize: 1 << 30, expectsMaskedFrames: true)
            reader.append(leftover)
        }

        /// Why the peer stopped.
        public enum Failure: Error, Equatable {
            /// The client broke the protocol (an unmasked frame, bad UTF-8, …).
            case protocolViolation(code: UInt16, reason: String)
            /// Nothing arrived within the timeout.
            case timedOut
            /// The server is stopping.
            case serverStopped
        }

        /// The client's next message; nil once the client closed (its close frame is in
        /// ``closeReceived``, and was answered) or the connection ended.
        /// - Parameter timeout: Seconds to wait (forever by default).
        /// - Throws: ``Failure``.
        public func receive(timeout: TimeInterval = -1) throws -> WebSocketMessage? {
            let deadline = timeout < 0 ? nil : Date().addingTimeInterval(timeout)
            while true {
                let inbound: WebSocketInbound?
                do {
                    inbound = try reader.next()
                } catch {
                    throw Failure.protocolViolation(code: error.code.rawValue, reason: error.reason)
                }
                switch inbound {
                case .message(let message):
                    return message
                case .ping(let payload):
                    pingsReceived.append(payload)
                    if answersPings { try write(.pong, payload) }
                case .pong(let payload):
                    pongsReceived.append(payload)
                case .close(let code, let reason):
                    closeReceived = (code, reason)
                    try? write(
                        .close, code.map { WebSocketFrameWriter.closePayload(code: $0, reason: "") } ?? [])
                    return nil
                case nil:
                    let remaining = deadline.map { $0.timeIntervalSinceNow }
                    if let remaining, remaining <= 0 { throw Failure.timedOut }
                    switch Socket.wait(for: fd, wakeFD: wakeFD, timeout: remaining ?? -1) {
                    case .woken: throw Failure.serverStopped
                    case .timedOut: throw Failure.timedOut
                    case .ready: break
                    }
                    guard let count = try Socket.receive(fd, into: &buffer) else { continue }
                    guard count > 0 else { return nil }
                    buffer.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                }
            }
        }

        /// Sends a message, unfragmented.
        public func send(_ message: WebSocketMessage) throws {
            switch message {
            case .text(let text): try write(.text, Array(text.utf8))
            case .binary(let data): try write(.binary, [UInt8](data))
            }
        }

        /// Sends a close frame; then waits (up to `timeout` seconds) for the client's, reading and
        /// dropping any messages before it. Returns whether the client answered.
        @discardableResult
        public func close(code: WebSocketCloseCode = .normal, reason: String = "", timeout: TimeInterval = 10)
            throws
            -> Bool
        {
            try write(.close, WebSocketFrameWriter.closePayload(code: code, reason: reason))
            while closeReceived == nil {
                guard (try? receive(timeout: timeout)) != nil || closeReceived != nil else { return false }
            }
            return true
        }

        /// Sends a ping.
        public func ping(_ payload: [UInt8] = []) throws {
            try write(.ping, payload)
        }

        /// Writes `bytes` exactly as given: frames of any shape, broken ones included.
        public func sendRaw(_ bytes: [UInt8]) throws {
            var sent = 0
            while sent < bytes.count {
                let count = try bytes.withUnsafeBytes {
                    try Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[sent...]))
                }
                if let count {
                    sent += count
                } else if case .woken = Socket.wait(for: fd, writable: true, wakeFD: wakeFD) {
                    throw Failure.serverStopped
                }
            }
        }

        /// Writes one frame (unmasked, as a server's must be) with the bits given.
        /// - Parameters:
        ///   - opcode: The opcode, reserved ones included.
        ///   - payload: The payload.
        ///   - fin: The FIN bit.
        ///   - reservedBits: RSV1–3 as the high nibble's low three bits (0x40, 0x20, 0x10).
        public func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true, reservedBits: UInt8 = 0)
            throws
        {
            var frame: [UInt8] = []
            writer.append(.binary, payload: payload, isFinal: fin, to: &frame)
            frame[0] = (fin ? 0x80 : 0) | (reservedBits & 0x70) | (opcode & 0x0F)
            try sendRaw(frame)
        }

        /// Reads and drops whatever arrives, answering nothing, until the client closes the
        /// connection (true) or `timeout` passes (false): a server that stopped answering.
        public func ignoreUntilClosed(timeout: TimeInterval = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0, case .ready = Socket.wait(for: fd, wakeFD: wakeFD, timeout: remaining)
                else {
                    return false
                }
                do {
                    guard let count = try Socket.receive(fd, into: &buffer) else { continue }
                    if count == 0 { return true }
                } catch {
                    return true
                }
            }
        }

        private func write(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws {
            var frame: [UInt8] = []
            writer.append(opcode, payload: payload, to: &frame)
            try sendRaw(frame)
        }
    }
}
