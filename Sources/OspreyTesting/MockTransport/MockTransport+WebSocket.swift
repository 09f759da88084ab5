import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension MockTransport: UpgradingTransport {
    /// A mock can always hand over a WebSocket's connection.
    package var supportsUpgrades: Bool { true }

    /// Serves WebSockets at `pattern`, in memory: `api.webSocket(route:)` opens one through the
    /// client's whole pipeline, the handshake is answered as ``LoopbackServer`` answers it, and
    /// `session` then talks to the client on a thread of its own until it returns, when the
    /// connection closes. The session's side is the loopback server's ``LoopbackServer/WebSocketPeer``,
    /// so a test can move between the two.
    ///
    /// ```swift
    /// mock.webSocket("/chat") { peer in
    ///     while let message = try peer.receive() { try peer.send(message) }
    /// }
    /// let socket = try await api.webSocket(route: api.get(endpoint: "/chat")).value
    /// ```
    ///
    /// The session ends at the latest when the mock is released: the peer's waits then throw
    /// ``LoopbackServer/WebSocketPeer/Failure/serverStopped``.
    /// - Parameters:
    ///   - pattern: The path, as for ``route(_:handler:)``.
    ///   - subprotocol: Chosen when the client offers it.
    ///   - acceptsCompression: Whether permessage-deflate is accepted when the client offers it.
    ///   - session: The server's side of the socket.
    public func webSocket(
        _ pattern: String, subprotocol: String? = nil, acceptsCompression: Bool = false,
        session: @escaping @Sendable (LoopbackServer.WebSocketPeer) throws -> Void
    ) {
        route("GET", pattern) { request in
            .response(
                LoopbackServer.webSocketAnswer(
                    to: request, subprotocol: subprotocol, acceptsCompression: acceptsCompression,
                    session: session))
        }
    }

    /// Answers a handshake with `101`: the request's sink takes the client's end of a socket
    /// pair, and `session` gets a peer on the other end.
    func upgrade(
        _ request: TransportRequest, with answer: LoopbackServer.Response,
        session: @escaping @Sendable (LoopbackServer.WebSocketPeer) throws -> Void,
        resolver: Resolver<TransportResponse>
    ) {
        let context = APIError.Context(request: request.urlRequest)
        let url = request.urlRequest.url ?? URL(string: "http://mock.invalid")!
        let fields = Dictionary(answer.headers.map { ($0.name, $0.value) }) { first, _ in first }
        guard let sink = request.downloadSink as? any UpgradeSink,
            let response = HTTPURLResponse(
                url: url, statusCode: 101, httpVersion: "HTTP/1.1", headerFields: fields)
        else {
            // A handshake sent as a plain request: a real server's 101 would leave it with a
            // connection it cannot use.
            resolver.reject(
                APIError.transport(
                    underlying: WebSocketError.invalidHandshake(
                        reason: "a WebSocket route answered a request that cannot take the connection"),
                    context: context))
            return
        }
        let ends: (client: Int32, server: Int32)
        let connection: SocketPairConnection
        let wake: SessionWake
        do {
            wake = try sessionWake()
            ends = try Socket.makeStreamPair()
            connection = try SocketPairConnection(fd: ends.client)
        } catch {
            resolver.reject(APIError.transport(underlying: error, context: context))
            return
        }
        do {
            try sink.upgraded(response, request: request.urlRequest, connection: connection)
        } catch {
            connection.close()
            close(ends.server)
            resolver.reject(error as? APIError ?? .transport(underlying: error, context: context))
            return
        }
        let peer = LoopbackServer.WebSocketPeer(
            fd: ends.server, wakeFD: wake.read, leftover: [], compression: answer.webSocketCompression)
        let thread = Thread {
            // The wake-up pipe stays open while a session may wait on it.
            withExtendedLifetime(wake) { _ = try? session(peer) }
            // The connection closes when the session returns, as the loopback server's does.
            shutdown(ends.server, Int32(SHUT_RDWR))
            close(ends.server)
        }
        thread.name = "osprey.mock.websocket-session"
        thread.start()
        resolver.fulfill(TransportResponse(response: response, data: Data(), request: request.urlRequest))
    }

    /// The pipe every session of this mock waits on besides its socket, made with the first.
    private func sessionWake() throws -> SessionWake {
        try webSocketSessions.withLock { wake in
            if let wake { return wake }
            let made = try SessionWake()
            wake = made
            return made
        }
    }
}

/// A pipe that wakes the WebSocket sessions of a mock once it is released; closed when the mock
/// and the last session are done with it.
final class SessionWake: Sendable {
    let read: Int32
    private let write: Int32

    init() throws {
        (read, write) = try Socket.makeWakePipe()
    }

    deinit {
        close(read)
        close(write)
    }

    /// Makes the read end readable for good: every wait on it ends.
    func wake() {
        var byte: UInt8 = 1
        _ = Foundation.write(write, &byte, 1)
    }
}
