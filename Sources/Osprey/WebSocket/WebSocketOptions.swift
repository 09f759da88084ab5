import Foundation

/// How a ``WebSocket`` opens and behaves: what it offers in its handshake, the limits on what the
/// server may send, and its timers.
///
/// ```swift
/// var options = WebSocketOptions()
/// options.subprotocols = ["graphql-transport-ws"]
/// options.keepAliveInterval = 20
/// let socket = try await api.webSocket(route: api.get(endpoint: "/graphql"), options: options).value
/// ```
public struct WebSocketOptions: Sendable, Equatable {
    /// The subprotocols offered (`Sec-WebSocket-Protocol`), most preferred first; the one the
    /// server chose is ``WebSocket/subprotocol``. Each must be an HTTP token.
    public var subprotocols: [String] = []
    /// The largest frame accepted from the server (default 16 MiB): a larger one closes the
    /// socket with 1009, before its payload is read.
    public var maximumFrameSize = 16 << 20
    /// The largest message accepted from the server, its fragments joined (default 16 MiB): a
    /// larger one closes the socket with 1009.
    public var maximumMessageSize = 16 << 20
    /// The largest payload of a frame the client sends; nil (the default) sends each message in
    /// one frame. Set it for a server that limits its frames: a longer message goes out in
    /// fragments (after compression, when compressed). At least 1.
    public var maximumOutgoingFrameSize: Int?
    /// The most bytes of received messages that wait for the reader (default 1 MiB): past it,
    /// the socket stops reading, so a slow reader slows the server down instead of filling memory.
    /// A single message larger than this still arrives whole.
    public var bufferSize = 1 << 20
    /// Seconds between keep-alive pings; nil (the default) sends none. A ping still unanswered
    /// when the next one is due ends the socket as lost: a dead connection is found within two
    /// intervals.
    public var keepAliveInterval: TimeInterval?
    /// Seconds to wait for the server's close frame after ``WebSocket/close(code:reason:)``
    /// (default 5): past it the connection is closed without it.
    public var closeTimeout: TimeInterval = 5

    /// Whether permessage-deflate (RFC 7692) is offered (the default): messages of 64 bytes or
    /// more are then compressed both ways when the server agrees. A compressed message from the
    /// server is held to ``maximumMessageSize`` as it inflates, so a decompression bomb fails with
    /// 1009 after at most that many bytes.
    public var compression = true

    /// The default options.
    public init() {}
}
