import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a WebSocket's opening asks of the pipeline: each attempt's request gets the handshake's
/// fields (a fresh key each time), the transport hands over the connection on a `101` (after
/// this plan checked the head), and the pipeline's success takes it. Any other answer is a
/// response like any other: retried, followed or failed by the API's rules.
final class WebSocketPlan: ResponseBodyPlan, UpgradeSink, Sendable {
    let options: WebSocketOptions
    /// Whether the transport frames messages itself (URLSession's WebSocket task): it then makes
    /// the handshake's key and extensions, and the plan offers only the subprotocols.
    let framedByTransport: Bool
    private let attempt = Locked(Attempt())

    private struct Attempt {
        var handshake: WebSocketHandshake?
        var upgraded: (connection: any UpgradedConnection, agreement: WebSocketHandshake.Agreement)?
        var claimed = false
        var ended = false
    }

    /// - Parameter options: checked already (see ``WebSocketHandshake/check(subprotocols:)``).
    init(options: WebSocketOptions, framedByTransport: Bool = false) {
        self.options = options
        self.framedByTransport = framedByTransport
    }

    func prepare(_ request: URLRequest, then send: @escaping @Sendable (URLRequest, _ waited: Bool) -> Void) {
        let offersCompression =
            options.compression && !framedByTransport && PerMessageDeflate.unavailableReason == nil
        let handshake = WebSocketHandshake(
            checked: options.subprotocols, extensionOffer: offersCompression ? PerMessageDeflate.offer : nil)
        var request = request
        for (name, value) in handshake.requestFields
        where !framedByTransport || name == "Sec-WebSocket-Protocol" {
            request.setValue(value, forHTTPHeaderField: name)
        }
        attempt.withLock { $0.handshake = handshake }
        send(request, false)
    }

    func upgraded(_ response: HTTPURLResponse, request: URLRequest, connection: any UpgradedConnection) throws
    {
        try take(connection, from: response) { try $0.validate($1) }
    }

    var messageLimit: Int { options.maximumMessageSize }

    func upgradedByMessageTask(
        _ response: HTTPURLResponse, request: URLRequest, connection: any UpgradedConnection
    ) throws {
        try take(connection, from: response) { try $0.validateByMessageTask($1) }
    }

    /// Checks the `101`'s head with `validate`, and keeps the connection for ``claim()``.
    private func take(
        _ connection: any UpgradedConnection, from response: HTTPURLResponse,
        validate: (WebSocketHandshake, HTTPHeaders) throws -> WebSocketHandshake.Agreement
    ) throws {
        guard let handshake = attempt.withLock({ $0.handshake }) else {
            throw WebSocketError.invalidHandshake(reason: "a 101 to a request that offered no handshake")
        }
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers.add(name: name, value: value)
            }
        }
        let agreement = try validate(handshake, headers)
        let late = attempt.withLock { attempt -> Bool in
            attempt.upgraded = (connection, agreement)
            return attempt.ended
        }
        // The request ended meanwhile (cancelled): nobody will take the connection.
        if late { connection.close() }
    }

    /// The connection and what the server agreed to, once: to the socket the pipeline's success
    /// makes.
    func claim() -> (connection: any UpgradedConnection, agreement: WebSocketHandshake.Agreement)? {
        attempt.withLock { attempt in
            guard !attempt.claimed, let upgraded = attempt.upgraded else { return nil }
            attempt.claimed = true
            return upgraded
        }
    }

    func requestEnded() {
        // A connection the request's success never took (it failed or was cancelled after the
        // 101) is closed: no socket is left open that nobody holds.
        let unclaimed = attempt.withLock { attempt -> (any UpgradedConnection)? in
            attempt.ended = true
            return attempt.claimed ? nil : attempt.upgraded?.connection
        }
        unclaimed?.close()
    }

    var allowsRetry: Bool { attempt.withLock { $0.upgraded == nil } }

    // A `101` never has a body; any other answer's body stays in memory, for its error.
    var startOffset: Int64 { 0 }
    var maximumBytes: Int64? { nil }
    func begin(_ response: HTTPURLResponse) throws -> Bool { false }
    func write(_ data: Data) throws {}
    func end() throws {}
    func abandon() {}
}
