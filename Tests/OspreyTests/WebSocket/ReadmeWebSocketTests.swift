#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// The README's WebSocket snippet, as written, against a loopback room.
    @Suite("README: a WebSocket next to the REST calls")
    struct ReadmeWebSocketTests {
        @Test("the snippet sends hello, prints what the room says until bye, and closes both ways")
        func snippet() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let seen = PeerRecord()
            server.webSocket("/rooms/general") { peer in
                var echoes: [WebSocketMessage] = []
                // The room answers the greeting, says bye, then answers the client's close. No
                // timeouts: a loaded run may take its time, and stopping the server ends the wait.
                if let greeting = try peer.receive() {
                    echoes.append(greeting)
                    try peer.send(.binary(Data([1])))
                    try peer.send(.text("welcome"))
                    try peer.send(.text("bye"))
                }
                while try peer.receive() != nil {}
                seen.finish(peer, echoes: echoes)
            }
            let api = try SocketAPI(server: server)
            var printed: [String] = []
            func print(_ text: String) { printed.append(text) }

            // The README's lines:
            let socket = try await api.webSocket(route: api.get(endpoint: "/rooms/general")).value
            try await socket.send(text: "hello").value
            for try await message in socket.messages {
                guard case .text(let text) = message else { continue }
                print(text)
                if text == "bye" { break }
            }
            _ = try await socket.close().value

            #expect(printed == ["welcome", "bye"])
            #expect(await server.waitUntilNoOpenConnections())
            #expect(seen.echoes == [.text("hello")])
            #expect(seen.close?.code == .normal)
        }
    }
#endif
