import Foundation
import Osprey

// osprey-example-streaming: a chat client that sends a prompt and prints the answer token by
// token as the server writes it, against a loopback server (no internet needed). Run it with
// `swift run osprey-example-streaming`; it exits with 1 as soon as something is not as expected.

let assistant = try FakeAssistant()
defer { assistant.server.stop() }
let api = ChatAPI(baseURL: assistant.baseURL)

await Expect.part("1. A prompt, answered token by token (async/await)") {
    show("  > What do ospreys eat?\n  ")
    var answer = ""
    for try await token in api.answer(to: "What do ospreys eat?").values(of: Token.self, endingAt: "[DONE]") {
        show(token.text)
        // The server holds the rest of the answer until this first token has been shown.
        if answer.isEmpty { assistant.firstTokenShown.signal() }
        answer += token.text
    }
    show("\n")
    Expect.that(answer == FakeAssistant.answer.joined(), "unexpected answer: \(answer)")
    Expect.that(
        !assistant.gaveUpWaiting.withLock { $0 }, "the first token only came with the rest of the answer")
}

await Expect.part("2. The Osprey way: a handler per event on a queue of yours, and a promise") {
    let ui = DispatchQueue(label: "ui")
    let shown = Locked("")
    let finished = api.answer(to: "Once more?").onEvent(in: ui) { event in
        dispatchPrecondition(condition: .onQueue(ui))
        guard event.event == "token", let token = try? event.decode(Token.self) else { return }
        if shown.withLock({ $0.isEmpty }) { assistant.firstTokenShown.signal() }
        shown.withLock { $0 += token.text }
    }
    try await finished.value
    let text = shown.withLock { $0 }
    show("  \(text)\n")
    Expect.that(text == FakeAssistant.answer.joined(), "unexpected answer: \(text)")
    let prompts = assistant.server.requests.filter { $0.path == "/chat" }.count
    Expect.that(prompts == 2, "a prompt was sent again: \(prompts) POSTs for two prompts")
}

await Expect.part("3. Who is typing: an event source that reconnects where it left off") {
    var updates: [[String]] = []
    for try await presence in api.presence(in: 1) {
        show("  typing: \(presence.typing.isEmpty ? "nobody" : presence.typing.joined(separator: ", "))\n")
        updates.append(presence.typing)
    }
    let reconnections = assistant.server.requests.filter { $0.path.hasSuffix("/presence") }
        .map { $0.value(forHeader: "Last-Event-ID") ?? "-" }
    show("  connections sent Last-Event-ID: \(reconnections.joined(separator: ", "))\n")
    Expect.that(updates == [["ada"], ["ada", "alan"], []], "unexpected updates: \(updates)")
    Expect.that(reconnections == ["-", "2", "3"], "unexpected reconnections: \(reconnections)")
}

await Expect.part("4. Stop generating: leaving the loop closes the connection") {
    var tokens = 0
    show("  ")
    for try await token in api.answer(to: "Tell me slowly, forever").values(
        of: Token.self, endingAt: "[DONE]")
    {
        show(token.text)
        tokens += 1
        if tokens == 3 { break }
    }
    show("[stopped]\n")
    let hungUp = await assistant.waitForHangUp(timeout: 5)
    Expect.that(hungUp, "the server is still writing: the answer was not stopped")
    show("  the server saw the client hang up after \(tokens) tokens\n")
}

await Expect.part("5. The room, live: a WebSocket, posts as JSON both ways") {
    guard CurlTransport.unavailableReason == nil else {
        show("  skipped: WebSockets need CurlTransport (\(CurlTransport.unavailableReason ?? ""))\n")
        return
    }
    let socket = try await api.live(in: 1).value
    var posts: [Post] = []
    for text in ["hello", "anyone seen an osprey?"] { socket.send(text: text) }
    for try await message in socket.messages {
        let post = try socket.decode(Post.self, from: message)
        show("  \(post.author): \(post.text)\n")
        posts.append(post)
        if posts.count == 3 { break }
    }
    let close = try await socket.close(reason: "bye").value
    show("  left the room (\(close.code))\n")
    Expect.that(
        posts.map(\.text) == ["welcome", "hello", "anyone seen an osprey?"], "unexpected posts: \(posts)")
    Expect.that(close.initiator == .client && close.code == .normal, "unexpected close: \(close)")
}

show("\n✓ done\n")
