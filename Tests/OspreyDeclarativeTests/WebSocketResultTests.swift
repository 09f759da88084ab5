import Foundation
import Osprey
import OspreyTesting
import Testing

/// A chat service declared with `@API`: its rooms are WebSockets.
enum Chat {
    @API
    @Headers(["X-Client": "tests"])
    protocol Rooms {
        @GET("/rooms/:room")
        func join(room: String, token: Query<String>) async throws -> WebSocket

        @GET("/rooms/:room/watch")
        func watch(room: String) -> Promise<WebSocket>

        @GET("/history/:room")
        func history(room: String) async throws -> [String]
    }
}

/// `@API` requirements that return a `WebSocket` open it through the pipeline, next to the
/// service's plain requests.
@Suite("Declarative WebSocket results")
struct DeclarativeWebSocketTests {
    /// A mock whose rooms echo until the client closes, with a plain history route beside them.
    private static func chat() -> MockTransport {
        let mock = MockTransport()
        mock.webSocket("/rooms/:room") { peer in
            while let message = try peer.receive() { try peer.send(message) }
        }
        mock.webSocket("/rooms/:room/watch") { peer in
            try peer.send(.text("watching"))
            try peer.close(code: .normal, reason: "done")
        }
        mock.route("GET", "/history/:room") { _ in .json(#"["earlier"]"#) }
        return mock
    }

    @Test(
        "an async requirement opens the socket with its path, query and headers; messages echo; https requests go beside"
    )
    func asyncRequirement() async throws {
        let mock = Self.chat()
        // An https base URL serves both: the sockets' handshakes are https requests too.
        let api = Chat.RoomsAPI(baseURL: "https://chat.example.com", transport: mock)
        let socket = try await api.join(room: "lobby", token: "t1")
        try await socket.send(text: "hello").value
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        _ = try await socket.close().value
        #expect(try await api.history(room: "lobby") == ["earlier"])

        let handshake = try #require(mock.requests.first)
        #expect(handshake.method == "GET")
        #expect(handshake.url?.absoluteString == "https://chat.example.com/rooms/lobby?token=t1")
        #expect(handshake.value(forHeader: "X-Client") == "tests")
        #expect(handshake.value(forHeader: "Upgrade") == "websocket")
        #expect(mock.requests.map(\.path) == ["/rooms/lobby", "/history/lobby"])
    }

    @Test("a Promise requirement opens the socket; the server's close ends it")
    func promiseRequirement() async throws {
        let api = Chat.RoomsAPI(baseURL: "ws://chat.example.com", transport: Self.chat())
        let socket = try await api.watch(room: "lobby").value
        var messages: [WebSocketMessage] = []
        for try await message in socket.messages { messages.append(message) }
        #expect(messages == [.text("watching")])
        #expect(
            try await socket.closed.value == WebSocketClose(code: .normal, reason: "done", initiator: .server)
        )
    }
}
