import Foundation
import Testing

@testable import Osprey

@Suite("WebSocket: the protocol's state (RFC 6455 §5.5, §7)")
struct WebSocketStateMachineTests {
    private static func machine() -> WebSocketStateMachine {
        WebSocketStateMachine(maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20)
    }

    /// A frame as the server sends it (unmasked).
    private static func server(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        WebSocketFrameWriter(masks: false).append(opcode, payload: payload, to: &output)
        return output
    }

    /// The frames the client wrote, unmasked, as the server reads them.
    private static func written(_ bytes: [UInt8], compressed: Bool = false) throws -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(
            maximumFrameSize: 1 << 20, allowsCompression: compressed, expectsMaskedFrames: true)
        parser.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try parser.next() { frames.append(frame) }
        #expect(parser.bufferedCount == 0)
        return frames
    }

    @Test("messages are delivered and pings answered with a pong of the same payload")
    func messagesAndPings() throws {
        var machine = Self.machine()
        let actions = machine.received(
            Self.server(.text, Array("hi".utf8)) + Self.server(.ping, [1, 2]) + Self.server(.binary, [3]))
        #expect(actions.deliver == [.text("hi"), .binary(Data([3]))])
        #expect(try Self.written(actions.write).map { [$0.opcode.rawValue] + $0.payload } == [[0xA, 1, 2]])
        #expect(actions.outcome == nil)
        #expect(!actions.closeConnection)
        let frame = machine.send(.text("yo"))
        let sent = try #require(frame)
        #expect(try Self.written(sent).first?.payload == Array("yo".utf8))
    }

    @Test("a close from the server is echoed with its code; the socket ends as the server closed it")
    func serverCloses() throws {
        var machine = Self.machine()
        let actions = machine.received(Self.server(.close, [0x0F, 0xA0] + Array("later".utf8)))
        let echoed = try Self.written(actions.write)
        #expect(echoed.map(\.opcode) == [.close])
        #expect(echoed.first?.payload == [0x0F, 0xA0])
        #expect(actions.closeConnection)
        #expect(
            actions.outcome
                == .success(
                    WebSocketClose(code: WebSocketCloseCode(4000), reason: "later", initiator: .server)))
        let late = machine.send(.text("late"))
        #expect(late == nil)
        // Nothing is read after the close.
        let after = machine.received(Self.server(.text, [0x41]))
        #expect(after.deliver.isEmpty)
    }

    @Test("a close with no code is echoed empty and reported as 1005")
    func serverClosesWithoutCode() throws {
        var machine = Self.machine()
        let actions = machine.received(Self.server(.close, []))
        #expect(try Self.written(actions.write).first?.payload == [])
        #expect(
            actions.outcome
                == .success(WebSocketClose(code: .noStatusReceived, reason: "", initiator: .server)))
    }

    @Test("the client's close: messages still arrive until the server's close, which ends the socket")
    func clientCloses() throws {
        var machine = Self.machine()
        let close = machine.close(code: .normal, reason: "bye")
        #expect(try Self.written(close.write).first?.payload == [0x03, 0xE8] + Array("bye".utf8))
        #expect(!machine.isOpen)
        let after = machine.send(.text("after"))
        #expect(after == nil)
        let again = machine.close(code: .normal, reason: "again")
        #expect(again.write.isEmpty)
        // A ping after the client's close is not answered; a message is still delivered.
        let more = machine.received(Self.server(.ping, []) + Self.server(.text, Array("last".utf8)))
        #expect(more.write.isEmpty)
        #expect(more.deliver == [.text("last")])
        let end = machine.received(Self.server(.close, [0x03, 0xE8]))
        #expect(end.write.isEmpty)
        #expect(end.closeConnection)
        #expect(end.outcome == .success(WebSocketClose(code: .normal, reason: "", initiator: .client)))
        #expect(machine.isClosed)
    }

    @Test("a violation writes a close with its code and ends the connection without waiting")
    func violation() throws {
        var machine = Self.machine()
        let actions = machine.received(Self.server(.text, [0xFF]))
        let close = try Self.written(actions.write)
        #expect(close.map(\.opcode) == [.close])
        #expect(close.first?.payload.prefix(2) == [0x03, 0xEF])
        #expect(actions.closeConnection)
        guard case .failure(.protocolViolation(let code, _)) = actions.outcome else {
            Issue.record("\(String(describing: actions.outcome))")
            return
        }
        #expect(code == .invalidFramePayloadData)
        let ended = machine.connectionEnded(error: nil)
        #expect(ended.outcome == nil)
    }

    @Test("the connection ending without a close frame ends the socket as lost (1006)")
    func connectionLost() {
        var machine = Self.machine()
        guard case .failure(.connectionLost) = machine.connectionEnded(error: nil).outcome else {
            Issue.record("not reported as lost")
            return
        }
        #expect(machine.isClosed)
    }

    @Test("keep-alive: a ping each time, and a second tick with no pong ends the socket as lost")
    func keepAlive() throws {
        var machine = Self.machine()
        let first = machine.keepAliveDue()
        #expect(try Self.written(first.write).map(\.opcode) == [.ping])
        let pong = machine.received(Self.server(.pong, []))
        #expect(pong.pongReceived)
        let second = machine.keepAliveDue()
        #expect(try Self.written(second.write).map(\.opcode) == [.ping])
        let dead = machine.keepAliveDue()
        #expect(try Self.written(dead.write).map(\.opcode) == [.close])
        #expect(dead.closeConnection)
        guard case .failure(.connectionLost(let reason)) = dead.outcome else {
            Issue.record("\(String(describing: dead.outcome))")
            return
        }
        #expect(reason.contains("pong"))
    }

    @Test(
        "with an outgoing frame size, a longer message goes out in fragments: its opcode first, then continuations"
    )
    func outgoingFragments() throws {
        var machine = WebSocketStateMachine(
            maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20, outgoingFrameSize: 4)
        let sent = machine.send(.text("0123456789"))
        let text = try #require(sent)
        let frames = try Self.written(text)
        #expect(frames.map(\.opcode) == [.text, .continuation, .continuation])
        #expect(frames.map(\.isFinal) == [false, false, true])
        #expect(frames.map { String(decoding: $0.payload, as: UTF8.self) } == ["0123", "4567", "89"])
        #expect(frames.allSatisfy { !$0.isCompressed })
        // Short enough, or empty: one frame.
        let short = machine.send(.binary(Data([1, 2, 3, 4])))
        #expect(try Self.written(try #require(short)).count == 1)
        let empty = machine.send(.text(""))
        #expect(try Self.written(try #require(empty)).map(\.isFinal) == [true])
        // The server reads the fragments back as the message.
        var reader = WebSocketReader(
            maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20, expectsMaskedFrames: true)
        reader.append(text)
        #expect(try reader.next() == .message(.text("0123456789")))
    }

    @Test(
        "a compressed message is compressed whole, then split: RSV1 on its first fragment only",
        .enabled(if: PerMessageDeflate.unavailableReason == nil))
    func compressedFragments() throws {
        var machine = WebSocketStateMachine(
            maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20, deflate: PerMessageDeflate(),
            outgoingFrameSize: 16)
        let message = WebSocketMessage.binary(
            Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 31 / 5) }))
        let frame = machine.send(message)
        let sent = try #require(frame)
        let frames = try Self.written(sent, compressed: true)
        #expect(frames.count > 2)
        #expect(frames.map(\.isCompressed) == [true] + Array(repeating: false, count: frames.count - 1))
        #expect(frames.dropLast().allSatisfy { $0.payload.count == 16 && !$0.isFinal })
        #expect(frames.last?.isFinal == true)
        var reader = WebSocketReader(
            maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20, expectsMaskedFrames: true,
            inflatingWindowBits: 15)
        reader.append(sent)
        #expect(try reader.next() == .message(message))
    }
}
