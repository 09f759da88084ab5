import Foundation
import Osprey

/// A server's bytes to a WebSocket client, cut at two places the input picks: what the client
/// delivers, writes back and ends with must not depend on where the pieces end, and the bytes it
/// holds stay within its limits (one frame and one message, plus the last piece).
enum WebSocketTarget {
    static let frameLimit = 4096
    static let messageLimit = 8192

    static func run(_ input: Data) {
        check(input, deflate: false)
        // The same bytes to a client that negotiated permessage-deflate: RSV1 frames are inflated,
        // and never past the message limit.
        check(input, deflate: true)
    }

    private static func check(_ input: Data, deflate: Bool) {
        guard input.count >= 2 else { return }
        let bytes = Array(input.dropFirst(2))
        let first = Int(input[input.startIndex]) * bytes.count / 256
        let second = first + (bytes.count - first) * Int(input[input.startIndex + 1]) / 256

        var whole = WebSocketStateMachine.fuzzing(
            frameLimit: frameLimit, messageLimit: messageLimit, deflate: deflate)
        let expected = whole.received(bytes)
        var cut = WebSocketStateMachine.fuzzing(
            frameLimit: frameLimit, messageLimit: messageLimit, deflate: deflate)
        var pieces: [WebSocketStateMachine.Actions] = []
        for range in [0..<first, first..<second, second..<bytes.count] {
            pieces.append(cut.received(Array(bytes[range])))
            precondition(
                cut.bufferedCount <= frameLimit + messageLimit + range.count + 14,
                "the client holds more than a frame and a message")
        }
        precondition(pieces.flatMap(\.deliver) == expected.deliver, "messages depend on the cuts")
        precondition(
            pieces.compactMap(\.outcome) == [expected.outcome].compactMap { $0 },
            "the end depends on the cuts")
        precondition(pieces.contains(where: \.closeConnection) == expected.closeConnection)
        precondition(pieces.contains(where: \.pongReceived) == expected.pongReceived)
        // What the client writes back is the same frames (masked with other keys: same lengths).
        precondition(
            pieces.map(\.write.count).reduce(0, +) == expected.write.count, "replies depend on the cuts")
        precondition(whole.isClosed == cut.isClosed)
        for message in expected.deliver {
            if case .binary(let data) = message { precondition(data.count <= messageLimit) }
            if case .text(let text) = message { precondition(text.utf8.count <= messageLimit) }
        }
        if case .success(let close) = expected.outcome {
            precondition(close.code.maySendInFrame || close.code == .noStatusReceived)
        }
    }
}
