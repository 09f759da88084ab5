import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebSocket task while it opens: URLSession's (``URLSessionMessageTask``), or a scripted one
/// in tests.
protocol OpeningWebSocketTask: WebSocketMessageTask {
    /// The task's identifier in its session, which the session delegate's calls name.
    var identifier: Int { get }
    /// The answer to the handshake, once one arrived.
    var httpResponse: HTTPURLResponse? { get }
    /// Starts the handshake.
    func resume()
}

/// Makes the WebSocket task for a handshake's request, whose messages may be up to the given
/// number of bytes.
typealias SocketTaskMaker =
    @Sendable (URLSession, URLRequest, _ messageLimit: Int) -> any OpeningWebSocketTask

/// One WebSocket opening through ``URLSessionTransport``: URLSession's WebSocket task makes the
/// handshake, and its answer is delivered like any response: a `101` after the sink took the
/// socket (``UpgradeSink/upgradedByMessageTask(_:request:connection:)``), a redirect followed by
/// the request's policy and ``RedirectRules`` (a task per hop), anything else as it came (with
/// no body: a WebSocket task keeps none). Cookies go out from the transport's jar and are kept
/// from every answer. The handshake's timeouts are the exchange's own timer; the task's own
/// timeout is set out of reach, as it might otherwise apply to the open socket.
final class SocketExchange: Sendable {
    private let original: TransportRequest
    private let sink: any UpgradeSink
    private let resolver: Resolver<TransportResponse>
    private let cookies: CookieJar?
    private let timers: DispatchQueue
    private let registry: SocketRegistry
    private let makeTask: @Sendable (URLRequest) -> any OpeningWebSocketTask
    private let state: Locked<State>

    private struct State {
        var request: URLRequest
        var task: (any OpeningWebSocketTask)?
        var redirects = 0
        var hops: [TransportResponse] = []
        var finished = false
    }

    /// - Parameters:
    ///   - registry: where the session delegate finds the exchange of each hop's task.
    ///   - makeTask: makes a hop's task.
    init(
        _ request: TransportRequest, sink: any UpgradeSink, resolver: Resolver<TransportResponse>,
        cookies: CookieJar?, timers: DispatchQueue, registry: SocketRegistry,
        makeTask: @escaping @Sendable (URLRequest) -> any OpeningWebSocketTask
    ) {
        original = request
        self.sink = sink
        self.resolver = resolver
        self.cookies = cookies
        self.timers = timers
        self.registry = registry
        self.makeTask = makeTask
        state = Locked(State(request: request.urlRequest))
    }

    /// Starts the first hop, and the timer of the whole opening.
    func start() {
        let limits = [original.idleTimeout, original.deadline].compactMap { $0 }.filter {
            $0 > 0 && $0.isFinite
        }
        if let limit = limits.min() {
            timers.asyncAfter(deadline: .now() + limit) { [weak self] in
                self?.fail { .timedOut(context: $0) }
            }
        }
        startHop()
    }

    private func startHop() {
        guard var request = state.withLock({ $0.finished ? nil : $0.request }) else { return }
        request.timeoutInterval = Exchange.noTimeout
        request.httpShouldHandleCookies = false
        if let value = cookies?.headerValue(for: request.url, fields: request.allHTTPHeaderFields) {
            request.setValue(value, forHTTPHeaderField: "Cookie")
        }
        request.url = request.url.map(Self.webSocketURL)
        let task = makeTask(request)
        // Registered before it starts, so that its callbacks always find the exchange.
        registry.register(task.identifier, for: self)
        let started = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.task = task
            return true
        }
        started ? task.resume() : task.abort()
    }

    /// The handshake succeeded (with `subprotocol`, as the task tells it): the sink checks the
    /// `101` and takes the socket. A task that keeps no `101` (its `response` is not one) gets
    /// one made from what it told.
    func opened(subprotocol: String?) {
        guard
            let (task, request) = state.withLock({ state in
                state.finished ? nil : state.task.map { ($0, state.request) }
            })
        else { return }
        let response: HTTPURLResponse
        if let kept = task.httpResponse, kept.statusCode == 101 {
            response = kept
        } else if let url = request.url,
            let made = HTTPURLResponse(
                url: url, statusCode: 101, httpVersion: "HTTP/1.1",
                headerFields: subprotocol.map { ["Sec-WebSocket-Protocol": $0] } ?? [:])
        {
            response = made
        } else {
            task.abort()
            return fail { .transport(underlying: URLError(.badServerResponse), context: $0) }
        }
        cookies?.keep(from: response)
        do {
            try sink.upgradedByMessageTask(
                response, request: request, connection: MessageTaskConnection(task: task))
        } catch {
            task.abort()
            return fail { error as? APIError ?? .transport(underlying: error, context: $0) }
        }
        deliver(response, request: request)
    }

    /// The task ended. Before it opened: its answer is delivered, or followed, or its error is
    /// the request's. After: the socket saw its end through its own reading.
    func completed(error: (any Error)?) {
        guard
            let (task, request) = state.withLock({ state in
                state.finished ? nil : state.task.map { ($0, state.request) }
            })
        else { return }
        guard let response = task.httpResponse else {
            return fail { .transport(underlying: error ?? URLError(.badServerResponse), context: $0) }
        }
        cookies?.keep(from: response)
        guard case .follow(let limit) = original.redirectPolicy else {
            return deliver(response, request: request)
        }
        switch RedirectRules.decide(
            after: response, to: request, original: original.urlRequest,
            sensitiveHeaders: original.sensitiveHeaders,
            webSocket: true)
        {
        case .deliver:
            deliver(response, request: request)
        case .refuse(let reason):
            fail { .redirectRefused(reason: reason, context: $0) }
        case .follow(let next, _):
            let follows = state.withLock { state -> Bool in
                guard state.redirects < limit else { return false }
                state.hops.append(TransportResponse(hop: .made(response), request: request))
                state.request = next
                state.redirects += 1
                return true
            }
            guard follows else {
                return fail { .redirectRefused(reason: "more than \(limit) redirects", context: $0) }
            }
            startHop()
        }
    }

    /// The request was cancelled: the task is closed (the promise is settled by its canceller).
    func cancel() {
        let task = state.withLock { state -> (any OpeningWebSocketTask)? in
            defer { state.finished = true }
            return state.finished ? nil : state.task
        }
        forget(task)
        task?.abort()
    }

    /// The opening is over: the registry lets go of it (and of the session its task maker
    /// holds), whether or not the task's completion ever comes; a late one finds nothing to do.
    private func forget(_ task: (any OpeningWebSocketTask)?) {
        if let task { registry.remove(task.identifier) }
    }

    /// Fails the opening with a transport error: `underlying`.
    func fail(_ underlying: any Error) {
        fail { .transport(underlying: underlying, context: $0) }
    }

    private func deliver(_ response: HTTPURLResponse, request: URLRequest) {
        guard
            let (hops, task) = state.withLock({
                state -> ([TransportResponse], (any OpeningWebSocketTask)?)? in
                defer { state.finished = true }
                return state.finished ? nil : (state.hops, state.task)
            })
        else { return }
        forget(task)
        var delivered = TransportResponse(response: response, data: Data(), request: request)
        delivered.redirects = hops
        resolver.fulfill(delivered)
    }

    private func fail(_ makeError: (APIError.Context) -> APIError) {
        guard
            let (task, context) = state.withLock({
                state -> ((any OpeningWebSocketTask)?, APIError.Context)? in
                guard !state.finished else { return nil }
                state.finished = true
                return (
                    state.task, APIError.Context(request: state.request, response: state.task?.httpResponse)
                )
            })
        else { return }
        forget(task)
        task?.abort()
        resolver.reject(makeError(context))
    }

    /// The URL with `ws`/`wss` for `http`/`https`: the scheme a WebSocket task is documented
    /// to take.
    static func webSocketURL(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case "http": components.scheme = "ws"
        case "https": components.scheme = "wss"
        default: return url
        }
        return components.url ?? url
    }
}

/// Finds the opening a session delegate's WebSocket callback belongs to.
final class SocketRegistry: Sendable {
    private let exchanges = Locked<[Int: SocketExchange]>([:])

    func register(_ identifier: Int, for exchange: SocketExchange) {
        exchanges.withLock { $0[identifier] = exchange }
    }

    func remove(_ identifier: Int) {
        exchanges.withLock { _ = $0.removeValue(forKey: identifier) }
    }

    /// The task `identifier` opened, with `subprotocol` (nil: none).
    func opened(_ identifier: Int, subprotocol: String? = nil) {
        exchanges.withLock { $0[identifier] }?.opened(subprotocol: subprotocol)
    }

    /// The task `identifier` must fail with `underlying` (a refused server key), before its
    /// cancellation ends it as a plain "cancelled".
    func failed(_ identifier: Int, underlying: any Error) {
        exchanges.withLock { $0[identifier] }?.fail(underlying)
    }

    /// The task `identifier` ended; true when it was a WebSocket task of this registry.
    @discardableResult
    func completed(_ identifier: Int, error: (any Error)?) -> Bool {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: identifier) }) else { return false }
        exchange.completed(error: error)
        return true
    }
}
