import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A connection that left HTTP with a `101 Switching Protocols` (a WebSocket's): from then on
/// the transport only carries its bytes, both ways, in order. The protocol spoken over it lives
/// above the transport (``WebSocketStateMachine`` and its framing).
///
/// Every method may be called from any thread; the receiver is called on the transport's own
/// thread, one call at a time, and must be quick (it must never wait).
package protocol UpgradedConnection: AnyObject, Sendable {
    /// Starts reading: bytes that came with the response's head first, then the connection's,
    /// until it ends. Called once.
    func start(_ receiver: any UpgradedConnectionReceiver)
    /// Writes `bytes` after every earlier write; `written` is told once they were all handed to
    /// the connection (nil), or that they never will be (the error).
    func write(_ bytes: [UInt8], written: (@Sendable ((any Error)?) -> Void)?)
    /// Stops reading from the connection (the reader is behind: bytes wait in the kernel, and
    /// the peer's sending slows down), or starts again.
    func setReading(_ reading: Bool)
    /// Closes the connection once the writes asked for so far went out; the receiver is then
    /// told it ended (with no error).
    func close()
}

/// What reads an ``UpgradedConnection``.
package protocol UpgradedConnectionReceiver: AnyObject, Sendable {
    /// Bytes arrived.
    func received(_ bytes: UnsafeRawBufferPointer)
    /// The connection ended: closed by either side (nil), or failed.
    func ended(_ error: (any Error)?)
}

/// A download sink that asks the transport for an upgrade: the request goes on a connection of
/// its own, over HTTP/1.1, and a `101` answer hands the connection over instead of a body.
/// Any other answer is an ordinary response (its body kept in memory, redirects followed).
package protocol UpgradeSink: DownloadSink {
    /// A `101` arrived for `request`: checks its head, and takes the connection.
    /// - Throws: why the head is not the answer asked for (the transport then closes the
    ///   connection and fails the request with the error).
    func upgraded(_ response: HTTPURLResponse, request: URLRequest, connection: any UpgradedConnection) throws

    /// The largest message a transport that frames messages itself (``UpgradingTransport/framesMessages``)
    /// lets its task take.
    var messageLimit: Int { get }

    /// A transport that frames messages itself made the handshake (its key, its extensions) and
    /// checked the answer's `Sec-WebSocket-Accept`: checks what remains of `response` (the
    /// subprotocol), and takes `connection`, whose frames the transport's task stands for.
    /// - Throws: as ``upgraded(_:request:connection:)``.
    func upgradedByMessageTask(
        _ response: HTTPURLResponse, request: URLRequest, connection: any UpgradedConnection
    ) throws
}

/// A transport that can hand over upgraded connections (``CurlTransport`` on Linux).
package protocol UpgradingTransport: HTTPTransport {
    /// Whether this transport can upgrade at all (libcurl is loaded; URLSession has WebSocket
    /// tasks).
    var supportsUpgrades: Bool { get }
    /// Whether the transport speaks WebSocket itself, in whole messages (URLSession's WebSocket
    /// task), rather than handing over the connection's bytes: its handshake then carries only
    /// the subprotocols the sink offers, and a `101` goes to
    /// ``UpgradeSink/upgradedByMessageTask(_:request:connection:)``.
    var framesMessages: Bool { get }
}

extension UpgradingTransport {
    package var framesMessages: Bool { false }
}
