#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// A client meeting a broken or hostile server (the loopback server's WebSocket side, which
    /// can write any bytes): each violation fails the socket with the RFC's close code, sent to
    /// the server too; dead connections are found; nothing is left open.
    @Suite("WebSocket: a broken or hostile server", .onItsOwnThread)
    struct WebSocketHostileServerTests {
        /// Opens a socket to a server whose session is `session`, and returns how the socket
        /// ended and what the server saw.
        private static func run(
            options: WebSocketOptions = WebSocketOptions(),
            _ session: @escaping @Sendable (LoopbackServer.WebSocketPeer) throws -> Void
        ) async throws -> (
            outcome: Result<WebSocketClose, any Error>, seen: PeerRecord, messages: [WebSocketMessage]
        ) {
            let server = try LoopbackServer()
            defer { server.stop() }
            let seen = PeerRecord()
            server.webSocket("/socket") { peer in
                defer { seen.finish(peer) }
                try session(peer)
            }
            let api = try SocketAPI(server: server)
            let socket = try await api.webSocket(route: api.get(endpoint: "/socket"), options: options).value
            var messages: [WebSocketMessage] = []
            do {
                for try await message in socket.messages { messages.append(message) }
            } catch {}
            let outcome = await socket.closed.result
            // The session has recorded what it saw once the connection is closed.
            #expect(await server.waitUntilNoOpenConnections())
            return (outcome, seen, messages)
        }

        /// A session that sends `bytes` and then reads until the client closes.
        private static func sending(_ bytes: [UInt8])
            -> @Sendable (LoopbackServer.WebSocketPeer) throws -> Void
        {
            { peer in
                try peer.sendRaw(bytes)
                while try peer.receive(timeout: 10) != nil {}
            }
        }

        static let violations: [(bytes: [UInt8], code: UInt16, why: String)] = [
            ([0x81, 0x02, 0xC3, 0x28], 1007, "text that is not UTF-8"),
            ([0x01, 0x01, 0x41, 0x80, 0x01, 0xFF], 1007, "a second fragment that is not UTF-8"),
            ([0x83, 0x00], 1002, "a reserved opcode"),
            ([0xC1, 0x01, 0x41], 1002, "RSV1 with no extension"),
            ([0x81, 0x81, 1, 2, 3, 4, 0x40], 1002, "a masked frame"),
            ([0x09, 0x00], 1002, "a fragmented ping"),
            ([0x80, 0x01, 0x41], 1002, "a continuation with no message"),
            ([0x88, 0x02, 0x03, 0xED], 1002, "close code 1005 in a frame"),
            ([0x82, 0x7F, 0, 0, 1, 0, 0, 0, 0, 0], 1009, "a frame header claiming a TiB"),
        ]

        @Test("each violation fails the socket with its close code, and the server receives that code")
        func violations() async throws {
            for (bytes, code, why) in Self.violations {
                let (outcome, seen, messages) = try await Self.run(Self.sending(bytes))
                #expect(messages.isEmpty, "\(why)")
                guard case .failure(WebSocketError.protocolViolation(let failed, _)) = outcome else {
                    Issue.record("\(why): \(outcome)")
                    continue
                }
                #expect(failed.rawValue == code, "\(why)")
                #expect(
                    seen.close?.code?.rawValue == code,
                    "\(why): the server saw \(String(describing: seen.close))")
            }
        }

        @Test("a message joined past the limit fails with 1009")
        func messageLimit() async throws {
            var options = WebSocketOptions()
            options.maximumMessageSize = 1000
            let (outcome, seen, _) = try await Self.run(options: options) { peer in
                try peer.sendFrame(opcode: 2, payload: [UInt8](repeating: 1, count: 600), fin: false)
                try peer.sendFrame(opcode: 0, payload: [UInt8](repeating: 1, count: 600))
                while try peer.receive(timeout: 10) != nil {}
            }
            guard case .failure(WebSocketError.protocolViolation(.messageTooBig, _)) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(seen.close?.code == .messageTooBig)
        }

        @Test("bytes right after the 101 are the first message; a ping is answered with its payload")
        func messageAfterHandshakeAndPing() async throws {
            let (outcome, seen, messages) = try await Self.run { peer in
                try peer.send(.text("first"))
                try peer.ping([7, 8, 9])
                try peer.send(.text("second"))
                // The client's pong comes before its answer to the close, which this waits for.
                try peer.close(code: .goingAway, reason: "restart")
            }
            #expect(messages == [.text("first"), .text("second")])
            #expect(seen.pongs == [[7, 8, 9]])
            #expect(
                try outcome.get() == WebSocketClose(code: .goingAway, reason: "restart", initiator: .server))
        }

        @Test("a connection closed without a close frame ends the socket as lost")
        func closedWithoutCloseFrame() async throws {
            let (outcome, _, messages) = try await Self.run { peer in
                try peer.send(.binary(Data([1])))
            }
            #expect(messages == [.binary(Data([1]))])
            guard case .failure(WebSocketError.connectionLost) = outcome else {
                Issue.record("\(outcome)")
                return
            }
        }

        @Test("a server that stops answering pings is found by the keep-alive and the connection closed")
        func deadServer() async throws {
            var options = WebSocketOptions()
            options.keepAliveInterval = 0.2
            let (outcome, _, _) = try await Self.run(options: options) { peer in
                _ = peer.ignoreUntilClosed()
            }
            guard case .failure(WebSocketError.connectionLost(let reason)) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(reason.contains("pong"))
        }

        @Test("a close the server never answers: the connection closes after the close timeout")
        func unansweredClose() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.webSocket("/socket") { peer in _ = peer.ignoreUntilClosed() }
            let api = try SocketAPI(server: server)
            var options = WebSocketOptions()
            options.closeTimeout = 0.3
            let socket = try await api.webSocket(route: api.get(endpoint: "/socket"), options: options).value
            let result = await socket.close(code: .normal).result
            guard case .failure(WebSocketError.connectionLost(let reason)) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(reason.contains("close frame"))
            #expect(await server.waitUntilNoOpenConnections())
        }

        @Test("releasing a socket, cancelling it, or cancelling its reader closes the connection")
        func nothingLeftOpen() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.webSocket("/socket") { peer in _ = peer.ignoreUntilClosed() }
            let api = try SocketAPI(server: server)
            // Released.
            do {
                _ = try await api.webSocket(route: api.get(endpoint: "/socket")).value
            }
            #expect(await server.waitUntilNoOpenConnections())
            // Cancelled.
            let socket = try await api.webSocket(route: api.get(endpoint: "/socket")).value
            socket.cancel()
            #expect(await server.waitUntilNoOpenConnections())
            let result = await socket.closed.result
            guard case .failure(APIError.cancelled) = result else {
                Issue.record("\(result)")
                return
            }
            // The reading task cancelled.
            let read = try await api.webSocket(route: api.get(endpoint: "/socket")).value
            let reader = Task { for try await _ in read.messages {} }
            reader.cancel()
            await #expect(throws: CancellationError.self) { try await reader.value }
            #expect(await server.waitUntilNoOpenConnections())
        }
    }
#endif

#if os(Linux)
    extension WebSocketHostileServerTests {
        @Test(
            "a reader that falls behind pauses the connection: at most the buffer and a message wait, and all arrive in order"
        )
        func backpressure() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let count = 512
            let size = 64 << 10
            server.webSocket("/flood") { peer in
                for index in 0..<count {
                    try peer.send(.binary(Data(repeating: UInt8(truncatingIfNeeded: index), count: size)))
                }
                try peer.close(code: .normal, reason: "flooded")
            }
            let api = try SocketAPI(server: server)
            var options = WebSocketOptions()
            options.bufferSize = 256 << 10
            let socket = try await api.webSocket(route: api.get(endpoint: "/flood"), options: options).value
            // Nobody reads until the socket stopped reading: 32 MiB were on their way.
            #expect(await socket.connection.readingPausedOnce())
            var index = 0
            for try await message in socket.messages {
                #expect(
                    message == .binary(Data(repeating: UInt8(truncatingIfNeeded: index), count: size)),
                    "message \(index)")
                index += 1
            }
            #expect(index == count)
            #expect(try await socket.closed.value.reason == "flooded")
            let highest = socket.connection.highestWaitingBytes
            #expect(highest <= options.bufferSize + size, "\(highest) bytes waited")
        }
    }
#endif

#if os(Linux)
    extension WebSocketHostileServerTests {
        @Test("a compressed bomb from the server fails with 1009 at the message limit, with bounded memory")
        func compressedBomb() async throws {
            let deflater = try #require(MessageDeflater(windowBits: 15, resetsEachMessage: false))
            let zeros = [UInt8](repeating: 0, count: 64 << 20)
            let bomb = try #require(zeros.withUnsafeBytes { deflater.compress($0) })
            let server = try LoopbackServer()
            defer { server.stop() }
            let seen = PeerRecord()
            server.webSocket("/bomb", acceptsCompression: true) { peer in
                defer { seen.finish(peer) }
                try peer.sendFrame(opcode: 2, payload: bomb, reservedBits: 0x40)
                while try peer.receive(timeout: 10) != nil {}
            }
            let api = try SocketAPI(server: server)
            var options = WebSocketOptions()
            options.maximumMessageSize = 4 << 20
            let socket = try await api.webSocket(route: api.get(endpoint: "/bomb"), options: options).value
            #expect(socket.extensions == ["permessage-deflate"])
            let outcome = await socket.closed.result
            guard case .failure(WebSocketError.protocolViolation(.messageTooBig, _)) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(await server.waitUntilNoOpenConnections())
            #expect(seen.close?.code == .messageTooBig)
            #expect(socket.connection.highestWaitingBytes == 0)
        }
    }
#endif
