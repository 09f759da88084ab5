import Foundation
import Osprey
import OspreyTesting

/// A loopback server that plays the chat service (no internet needed): it answers every prompt
/// with the same sentence, a token at a time, and serves a presence feed that drops its first
/// connection.
final class FakeAssistant: Sendable {
    /// The sentence every prompt gets, cut into the tokens the server sends.
    static let answer = ["Ospreys ", "dive ", "feet ", "first ", "for ", "fish."]

    let server: LoopbackServer
    /// Signalled by the client when it has shown the first token: the server holds the rest of
    /// the answer until then, so a client that waited for the whole body would never get it.
    let firstTokenShown = DispatchSemaphore(value: 0)
    /// Whether the server gave up waiting for the client to show the first token.
    let gaveUpWaiting = Locked(false)
    /// Signalled when a client hangs up in the middle of an answer.
    let hungUp = DispatchSemaphore(value: 0)

    /// Starts the server on 127.0.0.1 and an ephemeral port.
    init() throws {
        server = try LoopbackServer()
        let eventStream = [LoopbackServer.HeaderField("Content-Type", "text/event-stream")]
        server.route("POST", "/chat") { [firstTokenShown, gaveUpWaiting, hungUp] request in
            let slowly =
                request.body.count > 0 && String(decoding: request.body, as: UTF8.self).contains("slowly")
            return .streaming(headers: eventStream) { body in
                body.write(Self.event(Self.answer[0]))
                if !slowly, firstTokenShown.wait(timeout: .now() + 5) == .timedOut {
                    gaveUpWaiting.withLock { $0 = true }
                }
                // "slowly" answers forever, a token every 50 ms, until the client hangs up.
                var index = 1
                while slowly || index < Self.answer.count {
                    guard body.write(Self.event(Self.answer[index % Self.answer.count])),
                        !slowly || body.pause(for: 0.05)
                    else {
                        hungUp.signal()
                        return
                    }
                    index += 1
                }
                body.write("data: [DONE]\n\n")
            }
        }
        server.webSocket("/rooms/:id/live") { peer in
            // The room's live feed: a greeting, then each post the client sends comes back as
            // the room's JSON, until the client leaves.
            try peer.send(.text(#"{"author": "room", "text": "welcome"}"#))
            while case .text(let text)? = try peer.receive() {
                let post = try JSONEncoder().encode(Post(author: "you", text: text))
                try peer.send(.text(String(decoding: post, as: UTF8.self)))
            }
        }
        server.route("GET", "/rooms/:id/presence") { request in
            // The first connection sends two events and drops; the next one resumes after the
            // last event the client saw, then the feed ends with a 204.
            switch request.value(forHeader: "Last-Event-ID") {
            case nil:
                return .streaming(headers: eventStream) { body in
                    body.write("retry: 50\n\n")
                    body.write("id: 1\ndata: {\"typing\": [\"ada\"]}\n\n")
                    body.write("id: 2\ndata: {\"typing\": [\"ada\", \"alan\"]}\n\n")
                }.closingAfterStream()
            case "2":
                return .streaming(headers: eventStream) { body in
                    body.write("id: 3\ndata: {\"typing\": []}\n\n")
                }
            default:
                return .init(status: 204)
            }
        }
    }

    /// Whether a client hung up in the middle of an answer within `timeout` seconds.
    func waitForHangUp(timeout: TimeInterval) async -> Bool {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { [hungUp] in
                done.resume(returning: hungUp.wait(timeout: .now() + timeout) == .success)
            }
        }
    }

    /// The URL to give the client.
    var baseURL: String { server.baseURL.absoluteString }

    /// A `token` event carrying `text`.
    private static func event(_ text: String) -> String {
        "event: token\ndata: {\"text\": \"\(text)\"}\n\n"
    }
}
