import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Security)
    import Security
#endif

/// The default ``HTTPTransport``: one long-lived `URLSession` per transport, driven through
/// delegate callbacks (not `data(for:)`, whose cancellation can deadlock on Linux).
///
/// On top of URLSession it enforces, identically on Linux and Apple platforms: exact idle
/// timeouts and a total deadline (its own timers), a maximum response size, truncated bodies
/// as errors, redirects per ``RedirectPolicy``, and prompt 401s for Basic challenges.
public final class URLSessionTransport: HTTPTransport, SettlesOnItsOwnQueue, CookieJarTransport {
    let session: URLSession
    let delegate: SessionDelegate
    private let gate = DeliveryGate()
    let timers = DispatchQueue(label: "osprey.transport.timers")
    /// Where tasks are created, resumed and cancelled when the calling thread must not wait for
    /// FoundationNetworking (see ``Exchange``). Concurrent: one slow cancel must not hold up the
    /// next request's start.
    let control = DispatchQueue(label: "osprey.transport.control", attributes: .concurrent)
    /// Where tasks are suspended and resumed for streams' readers, in order.
    private let flowControl = DispatchQueue(label: "osprey.transport.flow")

    /// The transport's cookies, or nil when it keeps none.
    public let cookies: CookieJar?
    /// Why every request fails: TLS options this platform's URLSession cannot apply.
    private let tlsRefusal: String?
    /// Makes the tasks of WebSockets (URLSession's on Apple platforms); nil where none open.
    let socketTasks: SocketTaskMaker?

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: The session configuration; ephemeral (no shared cache) by default.
    ///     Its cookie settings are replaced: cookies are `cookies`' business.
    ///   - cookies: Where the transport keeps cookies (RFC 6265, by Osprey's rules on every
    ///     platform): a jar of its own in memory by default; nil for none.
    ///   - tls: On Apple platforms, pinned public keys (checked after the system's trust
    ///     evaluation), the oldest TLS version, and `TLSOptions.clientIdentity` for mutual TLS.
    ///     What the platform cannot apply (any of it on Linux but the defaults; PEM client
    ///     certificates and other trust roots everywhere) fails each request before any I/O
    ///     with ``APIError/invalidRequest(reason:)`` saying so: use ``CurlTransport`` for those.
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, cookies: CookieJar? = CookieJar(),
        tls: TLSOptions = TLSOptions()
    ) {
        #if canImport(FoundationNetworking)
            // FoundationNetworking (Swift 6.3) is built without libcurl's WebSocket calls: its
            // tasks fail "WebSockets not supported by libcurl" whatever libcurl is loaded.
            self.init(configuration: configuration, cookies: cookies, tls: tls, socketTasks: nil)
        #else
            self.init(
                configuration: configuration, cookies: cookies, tls: tls,
                socketTasks: URLSessionMessageTask.make)
        #endif
    }

    /// A transport whose WebSocket tasks `socketTasks` makes (nil: it opens none).
    init(
        configuration: URLSessionConfiguration, cookies: CookieJar?, tls: TLSOptions,
        socketTasks: SocketTaskMaker?
    ) {
        self.socketTasks = socketTasks
        let delegate = SessionDelegate(tls: tls)
        self.delegate = delegate
        self.cookies = cookies
        tlsRefusal = tls.unsupportedByURLSession
        // URLSession's own cookie handling is off: on Linux it was seen sending a `Secure`
        // cookie over plain http, and keeping one that `Max-Age=0` removes.
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // Nor does it answer a 401 from a credential store (a caller's `.default` configuration
        // would bring the shared one): Osprey authenticates with the headers the caller sets.
        configuration.urlCredentialStorage = nil
        #if !canImport(FoundationNetworking)
            configuration.tlsMinimumSupportedProtocolVersion =
                tls.minimumVersion == .tls13 ? .TLSv13 : .TLSv12
        #endif
        session = URLSession(
            configuration: configuration, delegate: delegate,
            delegateQueue: .transportDelegateQueue(gate: gate))
    }

    deinit {
        // Requests in flight keep the transport alive, so nothing is left to finish here. The
        // last reference can go on any thread, the session's delegate queue included, where
        // invalidating synchronously could wait on itself: hand it to another queue.
        let session = self.session
        DispatchQueue.global().async { session.invalidateAndCancel() }
    }

    /// Sends the request; see ``HTTPTransport``. A ``BodyStream`` body is first written to a
    /// private temporary file (URLSession must be able to read an upload again from its start),
    /// then uploaded from it with a `Content-Length`.
    public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        if let tlsRefusal { return Promise(error: APIError.invalidRequest(reason: tlsRefusal)) }
        if let stream = request.bodyStream {
            return Promise { [self] in
                try request.validate()
                let file: URL
                do {
                    file = try await BodyStreamSpool.write(stream)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    throw error as? APIError
                        ?? .transport(underlying: error, context: .init(request: request.urlRequest))
                }
                defer { try? FileManager.default.removeItem(at: file) }
                var spooled = request
                spooled.bodyStream = nil
                spooled.bodyFileURL = file
                return try await sendDirectly(spooled).value
            }
        }
        return sendDirectly(request)
    }

    private func sendDirectly(_ request: TransportRequest) -> Promise<TransportResponse> {
        let (promise, resolver) = Promise<TransportResponse>.pending()
        do {
            try request.validate()
        } catch {
            resolver.reject(error)
            return promise
        }
        if let sink = request.downloadSink as? any UpgradeSink {
            openSocket(request, sink: sink, resolver: resolver)
            return promise
        }
        let exchange = Exchange(
            request, resolver: resolver, timers: timers, control: control, gate: gate, cookies: cookies,
            flowControl: flowControl)
        // The exchange (and through it this transport) stays alive until the promise settles.
        resolver.onCancel { [self] in withExtendedLifetime(self) { exchange.cancel() } }
        exchange.startTimers()
        // Starting a task waits for FoundationNetworking's work queue: fine on the API's request
        // queue, where the pipeline sends from, but never on the main thread.
        if Thread.isMainThread {
            let session = self.session
            let registry = delegate.registry
            control.async { exchange.startTask(in: session, registry: registry) }
        } else {
            exchange.startTask(in: session, registry: delegate.registry)
        }
        return promise
    }
}
