import Foundation
import Osprey
import OspreyTestSupport
import OspreyTesting
import Testing

/// A socket client written the documentation's way, to test through the mock.
final class ChatAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    var baseURL = "wss://chat.example.com"

    struct Line: Codable, Sendable, Equatable {
        var text: String
    }

    func join(_ room: String, options: WebSocketOptions = WebSocketOptions()) -> Promise<WebSocket> {
        webSocket(route: get(endpoint: "/rooms/\(room)"), options: options)
    }
}

/// What a session saw, read by the test once the session is over.
final class SessionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _messages: [WebSocketMessage] = []
    private var _close: (code: WebSocketCloseCode?, reason: String)?
    private var _failure: LoopbackServer.WebSocketPeer.Failure?
    private let done = DispatchSemaphore(value: 0)

    var messages: [WebSocketMessage] { lock.withLock { _messages } }
    var close: (code: WebSocketCloseCode?, reason: String)? { lock.withLock { _close } }
    var failure: LoopbackServer.WebSocketPeer.Failure? { lock.withLock { _failure } }

    func received(_ message: WebSocketMessage) { lock.withLock { _messages.append(message) } }

    /// Records how the session ended, and lets ``waitUntilEnded()`` return.
    func ended(_ peer: LoopbackServer.WebSocketPeer, failure: (any Error)? = nil) {
        lock.withLock {
            _close = peer.closeReceived
            _failure = failure as? LoopbackServer.WebSocketPeer.Failure
        }
        done.signal()
    }

    /// Waits for the session to end, off the cooperative pool.
    func waitUntilEnded() async -> Bool {
        await Blocking.run { [done] in done.wait(timeout: .now() + 30) == .success }
    }
}

@Suite("MockTransport: WebSockets without a socket")
struct MockTransportWebSocketTests {
    /// A mock whose `/rooms/:name` echoes every message until the client closes.
    private static func echoing(_ log: SessionLog, compression: Bool = false) -> MockTransport {
        let mock = MockTransport()
        mock.webSocket("/rooms/:name", subprotocol: "chat", acceptsCompression: compression) { peer in
            do {
                while let message = try peer.receive() {
                    log.received(message)
                    try peer.send(message)
                }
                log.ended(peer)
            } catch {
                log.ended(peer, failure: error)
            }
        }
        return mock
    }

    @Test("the handshake goes through the pipeline; messages echo both ways; the close is agreed")
    func echo() async throws {
        let log = SessionLog()
        let mock = Self.echoing(log)
        let api = ChatAPI(responseParser: JSONParser(), transport: mock)
        api.configuration.headers["Authorization"] = "Bearer token"
        var options = WebSocketOptions()
        options.subprotocols = ["chat"]
        let socket = try await api.join("lobby", options: options).value
        #expect(socket.subprotocol == "chat")
        #expect(socket.response.statusCode == 101)

        try await socket.send(text: "hello").value
        try await socket.send(json: ChatAPI.Line(text: "line")).value
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        let echoed = try #require(try await iterator.next())
        #expect(try socket.decode(ChatAPI.Line.self, from: echoed) == ChatAPI.Line(text: "line"))

        let closed = try await socket.close(code: .normal, reason: "bye").value
        #expect(closed == WebSocketClose(code: .normal, reason: "", initiator: .client))
        #expect(await log.waitUntilEnded())
        #expect(log.close?.code == WebSocketCloseCode.normal)
        #expect(log.messages.count == 2)

        let handshake = try #require(mock.requests.first)
        #expect(handshake.method == "GET")
        #expect(handshake.url?.absoluteString == "https://chat.example.com/rooms/lobby")
        #expect(handshake.value(forHeader: "Authorization") == "Bearer token")
        #expect(handshake.value(forHeader: "Upgrade") == "websocket")
        #expect(handshake.value(forHeader: "Sec-WebSocket-Protocol") == "chat")
    }

    @Test("a session that closes with a code and reason ends the socket with them")
    func serverCloses() async throws {
        let mock = MockTransport()
        mock.webSocket("/rooms/:name") { peer in
            try peer.send(.text("welcome"))
            try peer.close(code: .goingAway, reason: "maintenance")
        }
        let api = ChatAPI(responseParser: JSONParser(), transport: mock)
        let socket = try await api.join("lobby").value
        var messages: [WebSocketMessage] = []
        for try await message in socket.messages { messages.append(message) }
        #expect(messages == [.text("welcome")])
        let closed = try await socket.closed.value
        #expect(closed == WebSocketClose(code: .goingAway, reason: "maintenance", initiator: .server))
    }

    @Test("permessage-deflate is agreed when the session accepts it, and messages still echo")
    func compression() async throws {
        let log = SessionLog()
        let mock = Self.echoing(log, compression: true)
        let api = ChatAPI(responseParser: JSONParser(), transport: mock)
        let socket = try await api.join("lobby").value
        #expect(socket.extensions.contains { $0.hasPrefix("permessage-deflate") })
        let text = String(repeating: "compressible ", count: 1_000)
        try await socket.send(text: text).value
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text(text))
        _ = try await socket.close().value
        #expect(await log.waitUntilEnded())
        #expect(log.messages == [.text(text)])
    }

    @Test("a socket that goes away without the closing handshake fails as a lost connection")
    func sessionEndsAbruptly() async throws {
        let mock = MockTransport()
        mock.webSocket("/rooms/:name") { peer in try peer.send(.text("only")) }
        let api = ChatAPI(responseParser: JSONParser(), transport: mock)
        let socket = try await api.join("lobby").value
        let outcome = await socket.closed.result
        #expect(throws: WebSocketError.self) { try outcome.get() }
        if case .failure(let error) = outcome {
            guard case .connectionLost = error as? WebSocketError else {
                Issue.record("expected connectionLost, got \(error)")
                return
            }
        }
    }

    @Test("a plain request to a WebSocket route is answered 400, as the loopback server answers it")
    func plainRequest() async throws {
        let mock = MockTransport()
        mock.webSocket("/rooms/:name") { _ in Issue.record("no session for a plain request") }
        let api = ChatAPI(responseParser: JSONParser(), transport: mock)
        api.baseURL = "https://chat.example.com"
        let plain: Promise<String> = api.request(route: api.get(endpoint: "/rooms/lobby"))
        let error = await #expect(throws: APIError.self) { try await plain.value }
        #expect(error?.response?.statusCode == 400)
    }

    @Test("releasing the mock ends a session still waiting for the client")
    func releasedMockEndsSessions() async throws {
        let log = SessionLog()
        var api: ChatAPI? = ChatAPI(responseParser: JSONParser(), transport: Self.echoing(log))
        let socket = try await #require(api).join("lobby").value
        try await socket.send(text: "first").value
        // The API held the only reference to the mock.
        api = nil
        #expect(await log.waitUntilEnded())
        #expect(log.failure == .serverStopped)
        // The session's end closed its side: the client sees the connection go.
        let outcome = await socket.closed.result
        #expect(throws: WebSocketError.self) { try outcome.get() }
    }
}
