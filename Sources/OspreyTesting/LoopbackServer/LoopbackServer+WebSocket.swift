import Foundation
import Osprey

extension LoopbackServer {
    /// Serves WebSockets at `pattern`: the opening handshake is checked (a `GET` with `Upgrade:
    /// websocket`, `Connection: Upgrade`, version 13 and a key; otherwise `400`), the `101` is
    /// sent, and `session` then talks to the client on the connection's own thread until it
    /// returns, when the connection closes.
    ///
    /// ```swift
    /// server.webSocket("/echo") { peer in
    ///     while let message = try peer.receive() { try peer.send(message) }
    /// }
    /// ```
    /// - Parameters:
    ///   - pattern: The path, as for ``route(_:handler:)``.
    ///   - subprotocol: Chosen when the client offers it.
    ///   - acceptsCompression: Whether permessage-deflate is accepted when the client offers it
    ///     (the peer then inflates what the client compresses; it sends uncompressed messages,
    ///     or any frame with ``WebSocketPeer/sendFrame(opcode:payload:fin:reservedBits:)``).
    ///   - session: The server's side of the socket.
    public func webSocket(
        _ pattern: String, subprotocol: String? = nil, acceptsCompression: Bool = false,
        session: @escaping @Sendable (WebSocketPeer) throws -> Void
    ) {
        route("GET", pattern) { request in
            Self.webSocketAnswer(
                to: request, subprotocol: subprotocol, acceptsCompression: acceptsCompression,
                session: session)
        }
    }

    /// The answer to a WebSocket's opening handshake: `101` with `session` to run on the
    /// connection, or `400` when `request` is not a handshake. Shared with ``MockTransport``.
    static func webSocketAnswer(
        to request: Request, subprotocol: String?, acceptsCompression: Bool,
        session: @escaping @Sendable (WebSocketPeer) throws -> Void
    ) -> Response {
        let tokens = { (name: String) in
            (request.value(forHeader: name) ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
        }
        guard tokens("Upgrade").contains("websocket"), tokens("Connection").contains("upgrade"),
            request.value(forHeader: "Sec-WebSocket-Version") == "13",
            let key = request.value(forHeader: "Sec-WebSocket-Key"), !key.isEmpty
        else { return .text("not a WebSocket handshake\n", status: 400) }
        var headers: [HeaderField] = [
            .init("Upgrade", "websocket"), .init("Connection", "Upgrade"),
            .init("Sec-WebSocket-Accept", WebSocketHandshake.accept(for: key)),
        ]
        let offered = (request.value(forHeader: "Sec-WebSocket-Protocol") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if let subprotocol, offered.contains(subprotocol) {
            headers.append(.init("Sec-WebSocket-Protocol", subprotocol))
        }
        let compresses =
            acceptsCompression
            && (request.value(forHeader: "Sec-WebSocket-Extensions") ?? "").lowercased().contains(
                "permessage-deflate")
        if compresses { headers.append(.init("Sec-WebSocket-Extensions", "permessage-deflate")) }
        var response = Response(status: 101, headers: headers, body: Data())
        response.webSocketSession = session
        response.webSocketCompression = compresses
        return response
    }
}
