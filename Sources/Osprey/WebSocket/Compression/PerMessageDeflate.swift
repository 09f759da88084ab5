import Foundation

#if canImport(CZlib)
    internal import CZlib
#endif

/// permessage-deflate (RFC 7692) as the server accepted it: whether each side keeps its
/// compression context from one message to the next, and each side's window.
struct PerMessageDeflate: Equatable, Sendable {
    /// The server starts each message afresh: the client's inflater forgets between messages.
    var serverNoContextTakeover = false
    /// The client must start each message afresh.
    var clientNoContextTakeover = false
    /// The window the server compresses with (2^bits bytes).
    var serverMaxWindowBits = 15
    /// The window the client may compress with.
    var clientMaxWindowBits = 15

    /// The extension's name in `Sec-WebSocket-Extensions`.
    static let name = "permessage-deflate"
    /// The client's offer: the extension, saying the client can be told a smaller window.
    static let offer = "permessage-deflate; client_max_window_bits"

    /// Why zlib cannot be used (nothing is then offered), or nil.
    static var unavailableReason: String? {
        #if canImport(CZlib)
            czlib_load_error().map { String(cString: $0) }
        #else
            "compression is used with CurlTransport, on Linux"
        #endif
    }

    /// Parameters given one by one (the defaults are RFC 7692's: context kept, 15-bit windows).
    init(
        serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// Reads the server's acceptance (RFC 7692 §7.1): each parameter known, at most once, with a
    /// window of 8 to 15 bits.
    /// - Throws: ``WebSocketError/invalidHandshake(reason:)`` naming the parameter at fault.
    init(accepting member: String) throws(WebSocketError) {
        var seen = Set<String>()
        for parameter in member.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let name = parts[0].lowercased()
            guard seen.insert(name).inserted else {
                throw .invalidHandshake(reason: "permessage-deflate's \(name) is given twice")
            }
            let value =
                parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else {
                    throw .invalidHandshake(reason: "permessage-deflate's \(name) takes no value")
                }
                if name == "server_no_context_takeover" {
                    serverNoContextTakeover = true
                } else {
                    clientNoContextTakeover = true
                }
            case "server_max_window_bits", "client_max_window_bits":
                guard let value, let bits = Int(value), (8...15).contains(bits), value.first != "0" else {
                    throw .invalidHandshake(reason: "permessage-deflate's \(name) is not 8 to 15")
                }
                if name == "server_max_window_bits" {
                    serverMaxWindowBits = bits
                } else {
                    clientMaxWindowBits = bits
                }
            default:
                throw .invalidHandshake(
                    reason: "permessage-deflate's parameter \(String(reflecting: name)) is unknown")
            }
        }
    }

    /// The negotiated parameters among the extensions the server accepted; nil when it accepted
    /// none.
    /// - Throws: when it accepted permessage-deflate twice, or with a parameter it may not send.
    static func negotiated(in extensions: [String]) throws(WebSocketError) -> PerMessageDeflate? {
        let accepted = extensions.filter { WebSocketHandshake.extensionName($0) == name }
        guard accepted.count <= 1 else {
            throw .invalidHandshake(reason: "permessage-deflate is accepted twice")
        }
        return try accepted.first.map { member throws(WebSocketError) in
            try PerMessageDeflate(accepting: member)
        }
    }
}
