import Foundation

/// The client's side of the opening handshake (RFC 6455 §4.1): the fields the upgrade request
/// carries, and the checks of the server's `101 Switching Protocols` that prove it speaks
/// WebSocket and agreed only to what was offered.
package struct WebSocketHandshake: Sendable {
    /// The protocol's fixed GUID, appended to the key before hashing (RFC 6455 §1.3).
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Key`: 16 random bytes in base64, fresh for every handshake.
    let key: String
    /// The subprotocols offered, in order of preference.
    let subprotocols: [String]
    /// The `Sec-WebSocket-Extensions` offer, or nil for none.
    let extensionOffer: String?

    /// What the server agreed to.
    struct Agreement: Equatable, Sendable {
        /// The subprotocol it chose, or nil.
        var subprotocol: String?
        /// The extensions it accepted, as it sent them (each one of those offered).
        var extensions: [String]
        /// permessage-deflate's parameters, when the server accepted it.
        var deflate: PerMessageDeflate? = nil
    }

    /// A handshake with a fresh key.
    /// - Throws: ``WebSocketError/invalidHandshake(reason:)`` when a subprotocol is not an
    ///   RFC 9110 token (it could not be sent, or could split the header).
    init(subprotocols: [String], extensionOffer: String? = nil, key: String? = nil) throws(WebSocketError) {
        for name in subprotocols where !HTTPToken.isValid(name) {
            throw .invalidHandshake(reason: "the subprotocol \(String(reflecting: name)) is not a token")
        }
        guard Set(subprotocols).count == subprotocols.count else {
            throw .invalidHandshake(reason: "a subprotocol is offered twice")
        }
        var generator = SystemRandomNumberGenerator()
        self.key = key ?? Data((0..<16).map { _ in generator.next() as UInt8 }).base64EncodedString()
        self.subprotocols = subprotocols
        self.extensionOffer = extensionOffer
    }

    /// A handshake with a fresh key, for subprotocols already checked (see
    /// ``check(subprotocols:)``).
    init(checked subprotocols: [String], extensionOffer: String? = nil) {
        var generator = SystemRandomNumberGenerator()
        key = Data((0..<16).map { _ in generator.next() as UInt8 }).base64EncodedString()
        self.subprotocols = subprotocols
        self.extensionOffer = extensionOffer
    }

    /// Checks subprotocols before anything is sent: each an RFC 9110 token, none twice.
    static func check(subprotocols: [String]) throws(WebSocketError) {
        _ = try WebSocketHandshake(subprotocols: subprotocols, key: "")
    }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with: base64 of SHA-1 of the key and
    /// the GUID.
    package static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// The fields the upgrade request carries, over any the caller set of the same names.
    var requestFields: [(name: String, value: String)] {
        var fields = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ]
        if !subprotocols.isEmpty {
            fields.append(("Sec-WebSocket-Protocol", subprotocols.joined(separator: ", ")))
        }
        if let extensionOffer { fields.append(("Sec-WebSocket-Extensions", extensionOffer)) }
        return fields
    }

    /// Checks a `101` response's head (RFC 6455 §4.1, the client's steps 1–6).
    /// - Returns: the subprotocol and extensions the server agreed to.
    /// - Throws: ``WebSocketError/invalidHandshake(reason:)`` saying which check failed.
    func validate(_ headers: HTTPHeaders) throws(WebSocketError) -> Agreement {
        let upgrade = headers.values(for: "Upgrade").flatMap(Self.tokens)
        guard upgrade.count == 1, upgrade[0].lowercased() == "websocket" else {
            throw .invalidHandshake(
                reason:
                    "the response's Upgrade is \(String(reflecting: headers["Upgrade"] ?? "")), not websocket"
            )
        }
        guard
            headers.values(for: "Connection").flatMap(Self.tokens).contains(where: {
                $0.lowercased() == "upgrade"
            })
        else {
            throw .invalidHandshake(reason: "the response's Connection does not say Upgrade")
        }
        let accepts = headers.values(for: "Sec-WebSocket-Accept")
        guard accepts.count == 1, accepts[0].trimmingCharacters(in: .whitespaces) == Self.accept(for: key)
        else {
            throw .invalidHandshake(reason: "the response's Sec-WebSocket-Accept does not match the key sent")
        }
        let chosen = try chosenSubprotocol(headers)
        let extensions = headers.values(for: "Sec-WebSocket-Extensions").flatMap(Self.tokens)
        let offered = Set((extensionOffer.map(Self.tokens) ?? []).map(Self.extensionName))
        for accepted in extensions where !offered.contains(Self.extensionName(accepted)) {
            throw .invalidHandshake(
                reason:
                    "the server accepted the extension \(String(reflecting: Self.extensionName(accepted))), which was not offered"
            )
        }
        return Agreement(
            subprotocol: chosen, extensions: extensions,
            deflate: try PerMessageDeflate.negotiated(in: extensions))
    }

    /// Checks the answer to a handshake a message task made (URLSession's, which sent its own
    /// key and extensions and checked `Sec-WebSocket-Accept` itself): the subprotocol must be one
    /// offered; the extensions are the task's business (reported, never run by the client).
    func validateByMessageTask(_ headers: HTTPHeaders) throws(WebSocketError) -> Agreement {
        Agreement(
            subprotocol: try chosenSubprotocol(headers),
            extensions: headers.values(for: "Sec-WebSocket-Extensions").flatMap(Self.tokens))
    }

    /// The subprotocol the server chose: at most one, among those offered.
    private func chosenSubprotocol(_ headers: HTTPHeaders) throws(WebSocketError) -> String? {
        let chosen = headers.values(for: "Sec-WebSocket-Protocol").flatMap(Self.tokens)
        guard chosen.count <= 1 else {
            throw .invalidHandshake(reason: "the server chose more than one subprotocol")
        }
        if let name = chosen.first, !subprotocols.contains(name) {
            throw .invalidHandshake(
                reason: "the server chose the subprotocol \(String(reflecting: name)), which was not offered")
        }
        return chosen.first
    }

    /// The comma-separated members of a field's value, trimmed, without empty ones.
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// An extension's name: what comes before its parameters (`permessage-deflate; …`).
    static func extensionName(_ member: String) -> String {
        member.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
    }
}
