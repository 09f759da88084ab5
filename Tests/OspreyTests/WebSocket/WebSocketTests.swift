#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// WebSockets through the API against an independent server (Python's `websockets`).
    @Suite(
        "WebSocket: opening, messages and closing against Python's websockets",
        .enabled(
            if: WebSocketServer.python != nil, "OSPREY_PYTHON is not set: run the tests with Scripts/test.sh")
    )
    struct WebSocketTests {
        @Test("text and binary messages echo back in order, and a close both sides agree to ends the socket")
        func echo() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            let socket = try await api.webSocket(route: api.get(endpoint: "/echo")).value
            #expect(socket.response.statusCode == 101)
            try await socket.send(text: "hello").value
            try await socket.send(data: Data([0, 1, 2, 255])).value
            try await socket.send(text: String(repeating: "é", count: 40_000)).value
            var iterator = socket.messages.makeAsyncIterator()
            var received: [WebSocketMessage?] = []
            for _ in 0..<3 { received.append(try await iterator.next()) }
            #expect(
                received == [
                    .text("hello"), .binary(Data([0, 1, 2, 255])),
                    .text(String(repeating: "é", count: 40_000)),
                ])
            let close = try await socket.close(code: .normal, reason: "done").value
            #expect(close == WebSocketClose(code: .normal, reason: "done", initiator: .client))
            let end = try await iterator.next()
            #expect(end == nil)
            await #expect(throws: WebSocketError.closed) { try await socket.send(text: "late").value }
        }

        @Test("the server's close ends the sequence cleanly, with its code and reason")
        func serverCloses() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            let socket = try await api.webSocket(route: api.get(endpoint: "/close")).value
            socket.send(text: "go")
            var received: [WebSocketMessage] = []
            for try await message in socket.messages { received.append(message) }
            #expect(received.isEmpty)
            #expect(
                try await socket.closed.value
                    == WebSocketClose(code: WebSocketCloseCode(4000), reason: "bye", initiator: .server))
        }

        @Test(
            "the handshake carries the API's headers and the offered subprotocol; the server's choice is kept"
        )
        func handshakeHeaders() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            api.configuration.headers["X-Client"] = "osprey-tests"
            var options = WebSocketOptions()
            options.subprotocols = ["superchat", "chat"]
            let socket = try await api.webSocket(
                route: api.get(endpoint: "/headers?room=1"), options: options
            ).value
            #expect(socket.subprotocol == "chat")
            var iterator = socket.messages.makeAsyncIterator()
            let next = try await iterator.next()
            let first = try #require(next)
            let headers = try socket.decode([String: String].self, from: first)
            #expect(headers["x-client"] == "osprey-tests")
            #expect(headers["sec-websocket-protocol"] == "superchat, chat")
            #expect(headers["sec-websocket-version"] == "13")
            #expect(headers["host"] == "127.0.0.1:\(server.port)")
            socket.cancel()
        }

        @Test("a refused handshake fails like any request, with the status and the body")
        func refused() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            let result = await api.webSocket(route: api.get(endpoint: "/forbidden")).result
            guard case .failure(APIError.unacceptableStatus(let context, _)) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(context.response?.statusCode == 403)
            #expect(String(decoding: context.data ?? Data(), as: UTF8.self) == "no sockets for you\n")
        }

        @Test("a redirect is followed to the socket")
        func redirect() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            let socket = try await api.webSocket(route: api.get(endpoint: "/redirect")).value
            try await socket.send(text: "after a redirect").value
            var iterator = socket.messages.makeAsyncIterator()
            let echoed = try await iterator.next()
            #expect(echoed == .text("after a redirect"))
            socket.cancel()
        }

        @Test("with permessage-deflate accepted, messages large and small, text and binary, echo whole")
        func compression() async throws {
            let server = try await WebSocketServer.start(deflate: true)
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            let socket = try await api.webSocket(route: api.get(endpoint: "/echo")).value
            #expect(socket.extensions.first?.hasPrefix("permessage-deflate") == true, "\(socket.extensions)")
            let messages: [WebSocketMessage] = [
                .text("hi"), .text(String(repeating: "ospreys dive for fish. ", count: 5000)),
                .binary(Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 / 7) })), .text("é😀 again"),
                .text(String(repeating: "ospreys dive for fish. ", count: 5000)),
            ]
            for message in messages { socket.send(message) }
            var iterator = socket.messages.makeAsyncIterator()
            for (index, message) in messages.enumerated() {
                let echoed = try await iterator.next()
                #expect(echoed == message, "message \(index)")
            }
            _ = try await socket.close().value
            // Offered unless turned off.
            var options = WebSocketOptions()
            options.compression = false
            let plain = try await api.webSocket(route: api.get(endpoint: "/echo"), options: options).value
            #expect(plain.extensions.isEmpty)
            plain.cancel()
        }

        @Test(
            "with an outgoing frame size, messages go out in fragments that the server joins, compressed or not",
            arguments: [false, true])
        func outgoingFragments(compressed: Bool) async throws {
            let server = try await WebSocketServer.start(deflate: compressed)
            defer { server.stop() }
            let api = try SocketAPI(baseURL: server.baseURL)
            var options = WebSocketOptions()
            options.maximumOutgoingFrameSize = 1_000
            let socket = try await api.webSocket(route: api.get(endpoint: "/echo"), options: options).value
            #expect(socket.extensions.isEmpty == !compressed, "\(socket.extensions)")
            let messages: [WebSocketMessage] = [
                .text(String(repeating: "é😀 ospreys ", count: 3_000)),
                .binary(Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })),
                .text("short"),
                .binary(Data()),
            ]
            for message in messages { socket.send(message) }
            var iterator = socket.messages.makeAsyncIterator()
            for (index, message) in messages.enumerated() {
                #expect(try await iterator.next() == message, "message \(index)")
            }
            #expect(try await socket.close().value.code == .normal)
        }

        @Test("an outgoing frame size below 1 fails the opening with a clear error, before any request")
        func invalidOutgoingFrameSize() async throws {
            // Nobody listens there: a request made would fail as refused instead.
            let server = try LoopbackServer()
            server.stop()
            let api = try SocketAPI(server: server)
            var options = WebSocketOptions()
            options.maximumOutgoingFrameSize = 0
            let result = await api.webSocket(route: api.get(endpoint: "/echo"), options: options).result
            guard case .failure(APIError.invalidRequest(let reason)) = result else {
                Issue.record("expected invalidRequest, got \(result)")
                return
            }
            #expect(reason.contains("maximumOutgoingFrameSize"))
        }

        @Test("a socket outlives the API and transport that opened it, which it keeps until it ends")
        func outlivesItsAPI() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            weak var released: CurlTransport?
            let socket: WebSocket
            do {
                let transport = try #require(CurlTransport(loops: 1))
                released = transport
                let api = SocketAPI(baseURL: server.baseURL, transport: transport)
                socket = try await api.webSocket(route: api.get(endpoint: "/echo")).value
                // Whatever the pipeline still holds of the API is let go of.
                await withCheckedContinuation { done in api.requestQueue.async { done.resume() } }
            }
            #expect(released != nil, "the open socket keeps its transport")
            try await socket.send(text: "still here").value
            var iterator = socket.messages.makeAsyncIterator()
            let echoed = try await iterator.next()
            #expect(echoed == .text("still here"))
            _ = try await socket.close().value
        }

        @Test("URLSessionTransport on Linux fails at once with an error that names CurlTransport")
        func urlSessionTransport() async throws {
            let api = SocketAPI(baseURL: "ws://127.0.0.1:9", transport: URLSessionTransport())
            let result = await api.webSocket(route: api.get(endpoint: "/echo")).result
            guard case .failure(WebSocketError.unsupportedTransport(let reason)) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(reason.contains("CurlTransport"))
        }
    }
#endif
