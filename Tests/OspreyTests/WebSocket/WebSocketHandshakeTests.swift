import Foundation
import Testing

@testable import Osprey

@Suite("WebSocket: the opening handshake (RFC 6455 §4.1)")
struct WebSocketHandshakeTests {
    /// The example of RFC 6455 §1.3.
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private static func response(_ extra: [(String, String)] = [], accept: String = accept) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Upgrade", value: "websocket")
        headers.add(name: "Connection", value: "Upgrade")
        headers.add(name: "Sec-WebSocket-Accept", value: accept)
        for (name, value) in extra { headers.add(name: name, value: value) }
        return headers
    }

    private static func failure(
        _ handshake: WebSocketHandshake, _ headers: HTTPHeaders
    ) -> String? {
        do {
            _ = try handshake.validate(headers)
            return nil
        } catch {
            guard case .invalidHandshake(let reason) = error else { return "\(error)" }
            return reason
        }
    }

    @Test("the accept value of the RFC's example, and a fresh 16-byte key each time")
    func acceptAndKey() throws {
        #expect(WebSocketHandshake.accept(for: Self.key) == Self.accept)
        let first = try WebSocketHandshake(subprotocols: [])
        let second = try WebSocketHandshake(subprotocols: [])
        #expect(Data(base64Encoded: first.key)?.count == 16)
        #expect(first.key != second.key)
    }

    @Test("the request carries Upgrade, Connection, the key, version 13 and the offers")
    func requestFields() throws {
        let handshake = try WebSocketHandshake(
            subprotocols: ["chat.v2", "chat"], extensionOffer: "permessage-deflate", key: Self.key)
        let fields = Dictionary(uniqueKeysWithValues: handshake.requestFields.map { ($0.name, $0.value) })
        #expect(fields["Upgrade"] == "websocket")
        #expect(fields["Connection"] == "Upgrade")
        #expect(fields["Sec-WebSocket-Key"] == Self.key)
        #expect(fields["Sec-WebSocket-Version"] == "13")
        #expect(fields["Sec-WebSocket-Protocol"] == "chat.v2, chat")
        #expect(fields["Sec-WebSocket-Extensions"] == "permessage-deflate")
        let bare = try WebSocketHandshake(subprotocols: [], key: Self.key)
        #expect(
            !bare.requestFields.contains {
                $0.name.hasPrefix("Sec-WebSocket-P") || $0.name.hasSuffix("Extensions")
            })
    }

    @Test("a subprotocol that is not a token, or offered twice, is refused before anything is sent")
    func badSubprotocols() {
        for names in [["chat\r\nX-Evil: 1"], ["two words"], [""], ["chat", "chat"]] {
            #expect(throws: WebSocketError.self, "\(names)") { try WebSocketHandshake(subprotocols: names) }
        }
    }

    @Test("a correct 101 is accepted, whatever the case of its tokens, with what the server chose")
    func accepted() throws {
        let handshake = try WebSocketHandshake(
            subprotocols: ["chat", "superchat"], extensionOffer: "permessage-deflate; client_max_window_bits",
            key: Self.key)
        var headers = HTTPHeaders()
        headers.add(name: "upgrade", value: "WebSocket")
        headers.add(name: "connection", value: "keep-alive, UPGRADE")
        headers.add(name: "sec-websocket-accept", value: Self.accept)
        headers.add(name: "Sec-WebSocket-Protocol", value: "superchat")
        headers.add(name: "Sec-WebSocket-Extensions", value: "permessage-deflate; server_no_context_takeover")
        let agreement = try handshake.validate(headers)
        #expect(agreement.subprotocol == "superchat")
        #expect(agreement.extensions == ["permessage-deflate; server_no_context_takeover"])
        #expect(try handshake.validate(Self.response()) == .init(subprotocol: nil, extensions: []))
    }

    @Test("a 101 that breaks a rule is refused, saying which")
    func refused() throws {
        let handshake = try WebSocketHandshake(subprotocols: ["chat"], key: Self.key)
        let cases: [(HTTPHeaders, String)] = [
            (Self.response(accept: "wrong"), "Sec-WebSocket-Accept"),
            (Self.response(accept: WebSocketHandshake.accept(for: "another key")), "Sec-WebSocket-Accept"),
            (Self.response([("Sec-WebSocket-Accept", Self.accept)]), "Sec-WebSocket-Accept"),
            (Self.response([("Sec-WebSocket-Protocol", "other")]), "not offered"),
            (Self.response([("Sec-WebSocket-Protocol", "chat, chat")]), "more than one"),
            (Self.response([("Sec-WebSocket-Extensions", "permessage-deflate")]), "permessage-deflate"),
        ]
        for (headers, expected) in cases {
            let reason = Self.failure(handshake, headers)
            #expect(reason?.contains(expected) == true, "\(reason ?? "accepted"), expected \(expected)")
        }
        var noUpgrade = Self.response()
        noUpgrade["Upgrade"] = "h2c"
        #expect(Self.failure(handshake, noUpgrade)?.contains("Upgrade") == true)
        var noConnection = Self.response()
        noConnection["Connection"] = "keep-alive"
        #expect(Self.failure(handshake, noConnection)?.contains("Connection") == true)
    }
}
