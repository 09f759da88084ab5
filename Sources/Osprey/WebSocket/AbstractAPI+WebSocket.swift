import Foundation
import Promises

extension AbstractAPI {
    /// Opens a WebSocket at `route`.
    ///
    /// ```swift
    /// let socket = try await api.webSocket(route: api.get(endpoint: "/feed")).value
    /// for try await message in socket.messages { print(message) }
    /// ```
    ///
    /// The opening handshake is a request like any other: the API's headers, adapters and
    /// authenticator, cookies, redirects (followed by the API's rules), proxies, TLS options,
    /// monitors and retry policy all apply (the HTTP cache does not). Base URLs and routes may
    /// use `ws`/`wss` or `http`/`https`. The server's `101` is checked (its
    /// `Sec-WebSocket-Accept`, `Upgrade`, `Connection`, and the subprotocol and extensions it
    /// chose among those offered); any other status fails like any request, with the response.
    ///
    /// WebSockets need a transport that can open them: ``CurlTransport`` on Linux, which hands
    /// over the connection, or ``URLSessionTransport`` on Apple platforms, whose WebSocket task
    /// frames the messages (see "Using WebSockets" for what it does its own way). Another
    /// transport fails at once with ``WebSocketError/unsupportedTransport(reason:)``.
    /// - Parameters:
    ///   - route: The URL (usually a `GET`; the handshake is always one).
    ///   - parameters: Query and headers (a body is not sent).
    ///   - options: Subprotocols, limits and timers.
    /// - Returns: A promise of the open socket.
    public func webSocket(
        route: Route, parameters: (any RequestParameters)? = nil,
        options: WebSocketOptions = WebSocketOptions()
    ) -> Promise<WebSocket> {
        openWebSocket(route: route.upgradingScheme(), parameters: parameters, options: options)
    }

    /// Opens a WebSocket: `route` is the handshake's (a `GET` to an `http`/`https` URL), and
    /// `parameters` write its request.
    func openWebSocket(
        route: Route, parameters: (any RequestParameters)?, options: WebSocketOptions
    ) -> Promise<WebSocket> {
        guard let upgrading = transport as? any UpgradingTransport, upgrading.supportsUpgrades else {
            return Promise(
                error: WebSocketError.unsupportedTransport(
                    reason: "\(type(of: transport)) cannot hand over a connection; use CurlTransport on Linux"
                ),
                defaultQueue: responseQueue)
        }
        do {
            try WebSocketHandshake.check(subprotocols: options.subprotocols)
            if let size = options.maximumOutgoingFrameSize, size < 1 {
                throw APIError.invalidRequest(
                    reason:
                        "WebSocketOptions.maximumOutgoingFrameSize must be at least 1 byte (it is \(size))")
            }
        } catch {
            return Promise(error: error, defaultQueue: responseQueue)
        }
        let plan = WebSocketPlan(options: options, framedByTransport: upgrading.framesMessages)
        var configuration = configuration
        // An upgrade is never stored or answered from a cache.
        configuration.cache = nil
        configuration.completesOnTransportThread = false
        let decoder = (responseParser as? JSONParser)?.decoder
        let queue = responseQueue
        return perform(route: route, parameters: parameters, body: plan, configuration: configuration) {
            exchange, _ in
            guard let (connection, agreement) = plan.claim() else {
                throw WebSocketError.invalidHandshake(reason: "the server's answer did not switch protocols")
            }
            let socket = WebSocketConnection(
                connection: connection, options: options, deflate: agreement.deflate, defaultQueue: queue)
            let made = WebSocket(
                connection: socket, response: exchange.response, agreement: agreement, decoder: decoder,
                responseQueue: queue)
            socket.start()
            return made
        }
    }
}

extension Route {
    /// The route of a WebSocket's opening handshake: a `GET`, with a `ws`/`wss` URL (and base
    /// URL) written as the `http`/`https` one the handshake goes to.
    func upgradingScheme() -> Route {
        var route = self
        route.method = .get
        route.url = Self.httpURL(url)
        route.baseURL = baseURL.map(Self.httpURL)
        return route
    }

    static func httpURL(_ text: String) -> String {
        let lowered = text.prefix(6).lowercased()
        if lowered.hasPrefix("ws://") { return "http://" + text.dropFirst(5) }
        if lowered.hasPrefix("wss://") { return "https://" + text.dropFirst(6) }
        return text
    }
}
