#if canImport(CCurl)
    internal import CCurl
    import Foundation
    import Promises

    /// An ``HTTPTransport`` on libcurl's multi interface, the default on Linux: a group of loop
    /// threads (one per core by default) runs the transport's transfers, reusing connections,
    /// without FoundationNetworking's layers in between (about three times raw `URLSession`'s
    /// throughput for small requests). Each loop owns its connections; a new transfer goes to the
    /// least busy loop, and an origin that speaks HTTP/2 stays on one loop and one connection.
    ///
    /// libcurl is loaded at run time (`libcurl.so.4`, which FoundationNetworking links too), so
    /// there is nothing to install. It keeps ``URLSessionTransport``'s contract: Osprey follows
    /// redirects itself by the same rules, the size limit counts decoded bytes as they arrive
    /// (a compression bomb stops at the limit), a download to disk pauses the transfer while
    /// the disk catches up, and the idle timeout sees every byte of a head that drips in. An idle
    /// HTTP/1 connection that receives bytes nobody asked for is retired before reuse. TLS uses
    /// the system's trust store, plus a CA file of your own; HTTP/2 is used over TLS when the
    /// library and the server support it. Proxies come from the environment (`http_proxy`,
    /// `https_proxy`, `all_proxy`, `no_proxy`), as for `URLSession` on Linux, or from an
    /// ``HTTPProxy`` given in code, with credentials sent to the proxy only.
    ///
    /// On Apple platforms libcurl is not used: the initialiser returns nil and
    /// ``unavailableReason`` says why.
    public final class CurlTransport: HTTPTransport, SettlesOnItsOwnQueue, CookieJarTransport {
        private let group: CurlLoopGroup
        /// Where promises settle: never the loop's thread (see ``CurlTransfer``). Concurrent, so
        /// that small bodies parsed where they are delivered are parsed side by side, and a slow
        /// parser there holds up no other response.
        private let delivery = DispatchQueue(label: "osprey.curl.delivery", attributes: .concurrent)
        private let settings: CurlTransfer.Settings

        /// A transport, or nil when libcurl cannot be loaded (``unavailableReason`` says why).
        /// - Parameters:
        ///   - trustedCertificates: A PEM file of CA certificates to trust besides the system's:
        ///     it becomes libcurl's CA file, and the system's CA folder (`/etc/ssl/certs` in
        ///     Debian's build) still applies.
        ///   - maximumConnectionsPerHost: How many connections to one host the transport opens
        ///     at most (URLSession's default is 6); more requests wait for one to be free.
        ///   - cookies: Where the transport keeps cookies (RFC 6265): a jar of its own in memory
        ///     by default; nil for none.
        ///   - proxy: The proxy for every request (with its credentials and the hosts it
        ///     bypasses); nil for the environment's (`http_proxy`, `https_proxy`, `all_proxy`,
        ///     `no_proxy`, credentials in the URL included).
        ///   - unixSockets: Host names whose requests go to a Unix domain socket instead of the
        ///     network, by socket path: `["docker": "/var/run/docker.sock"]` sends
        ///     `http://docker/v1.43/containers/json` to the Docker engine. Never through a proxy.
        ///   - tls: A client certificate for mutual TLS, pinned server keys, the oldest TLS
        ///     version (1.2 by default).
        ///   - httpVersion: Which HTTP versions may be spoken: HTTP/2 over TLS when the server
        ///     offers it, by default.
        ///   - loops: How many loop threads run the transfers; nil for one per core. Never more
        ///     than `maximumConnectionsPerHost`, which the loops share.
        public convenience init?(
            trustedCertificates: URL? = nil, maximumConnectionsPerHost: Int = 16,
            cookies: CookieJar? = CookieJar(), proxy: HTTPProxy? = nil, unixSockets: [String: String] = [:],
            tls: TLSOptions = TLSOptions(), httpVersion: HTTPVersionPolicy = .http2WhenOffered,
            loops: Int? = nil
        ) {
            self.init(
                trustedCertificates: trustedCertificates,
                maximumConnectionsPerHost: maximumConnectionsPerHost, cookies: cookies,
                proxies: proxy.map(ProxySettings.init)
                    ?? ProxySettings(environment: ProcessInfo.processInfo.environment),
                unixSockets: unixSockets, tls: tls, httpVersion: httpVersion, loops: loops)
        }

        /// A transport that offers HTTP/2 over TLS and runs a loop per core: the initialiser of
        /// 1.0, kept for code that names it; see
        /// ``init(trustedCertificates:maximumConnectionsPerHost:cookies:proxy:unixSockets:tls:httpVersion:loops:)``
        /// for the parameters.
        public convenience init?(
            trustedCertificates: URL? = nil, maximumConnectionsPerHost: Int = 16,
            cookies: CookieJar? = CookieJar(), proxy: HTTPProxy? = nil, unixSockets: [String: String] = [:],
            tls: TLSOptions = TLSOptions()
        ) {
            self.init(
                trustedCertificates: trustedCertificates,
                maximumConnectionsPerHost: maximumConnectionsPerHost,
                cookies: cookies, proxy: proxy, unixSockets: unixSockets, tls: tls,
                httpVersion: .http2WhenOffered, loops: nil)
        }

        /// A transport whose proxies come from `environment` instead of the process's (tests).
        package convenience init?(
            trustedCertificates: URL? = nil, maximumConnectionsPerHost: Int = 16,
            cookies: CookieJar? = CookieJar(), environment: [String: String]
        ) {
            self.init(
                trustedCertificates: trustedCertificates,
                maximumConnectionsPerHost: maximumConnectionsPerHost,
                cookies: cookies, proxies: ProxySettings(environment: environment))
        }

        /// A transport whose idle connections are reused for at most `idleConnectionAge`
        /// seconds instead of ``idleConnectionAge`` (tests).
        package convenience init?(idleConnectionAge: Int, loops: Int? = nil) {
            self.init(
                trustedCertificates: nil, maximumConnectionsPerHost: 16, cookies: CookieJar(),
                proxies: ProxySettings(), loops: loops, idleConnectionAge: idleConnectionAge)
        }

        /// How many seconds an idle connection may rest in a loop's pool and still be reused,
        /// for every transport made without an age of its own: libcurl's default, 118 s, unless
        /// raised. `LoopbackServer` raises it, so that tests counting connections do not depend
        /// on how soon the machine runs a test's next request (under ThreadSanitizer, with every
        /// suite on two cores, two requests of one test have come minutes apart).
        package static let idleConnectionAge = Locked(118)

        private init?(
            trustedCertificates: URL?, maximumConnectionsPerHost: Int, cookies: CookieJar?,
            proxies: ProxySettings, unixSockets: [String: String] = [:], tls: TLSOptions = TLSOptions(),
            httpVersion: HTTPVersionPolicy = .http2WhenOffered, loops: Int? = nil,
            idleConnectionAge: Int? = nil
        ) {
            guard
                let group = CurlLoopGroup(
                    count: loops ?? ProcessInfo.processInfo.activeProcessorCount,
                    maximumConnectionsPerHost: maximumConnectionsPerHost)
            else { return nil }
            self.group = group
            settings = CurlTransfer.Settings(
                trustedCertificates: trustedCertificates, proxies: proxies, cookies: cookies,
                unixSockets: Dictionary(unixSockets.map { ($0.key.lowercased(), $0.value) }) { _, last in last
                },
                tls: tls, httpVersion: httpVersion, idleConnectionAge: idleConnectionAge)
        }

        /// How many transfers the loops' callers started themselves while a loop waited with
        /// nothing to do, and how many of those ended at once (for tests).
        package var directStarts: (started: Int, endedAtOnce: Int) {
            let counts = group.loops.map(\.directStarts)
            return (counts.map(\.started).reduce(0, +), counts.map(\.endedAtOnce).reduce(0, +))
        }

        /// How many idle pooled connections were retired because bytes arrived on them (tests).
        package var retiredConnections: Int {
            get async {
                var retired = 0
                for loop in group.loops { retired += await loop.retiredConnections }
                return retired
            }
        }

        /// The local ports the loops' pollers hold for their idle connections (tests).
        package var idleConnectionPorts: [Int] {
            get async {
                var ports: [Int] = []
                for loop in group.loops { ports += await loop.idleConnectionPorts }
                return ports
            }
        }

        /// How many transfers each loop has now (tests).
        package var loopLoads: [Int] { group.loops.map(\.load) }

        /// Stops one loop as if its poller had failed: its transfers fail, the others go on (tests).
        /// Returns once the loop has stopped.
        package func stopLoop(_ index: Int) async {
            await withCheckedContinuation { continuation in
                let submitted = group.loops[index].submit(
                    .shutDown(reason: "stopped by a test", then: { continuation.resume() }))
                if !submitted { continuation.resume() }
            }
        }

        /// The transport's cookies, or nil when it keeps none.
        public var cookies: CookieJar? { settings.cookies }

        deinit {
            group.shutDown(reason: "the transport was released")
        }

        /// Why libcurl cannot be used here, or nil when it can.
        public static var unavailableReason: String? {
            CurlLibrary.isAvailable ? nil : CurlLibrary.loadError ?? "libcurl could not be loaded"
        }

        /// The loaded library's version text, such as `libcurl/7.88.1 OpenSSL/3.0.15 …`, or nil.
        public static var libraryVersion: String? { CurlLibrary.isAvailable ? CurlLibrary.version : nil }

        /// Sends `request` from the transport's thread.
        public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
            let (promise, resolver) = Promise<TransportResponse>.pending()
            do {
                try request.validate()
            } catch {
                resolver.reject(error)
                return promise
            }
            start(request, resolver: resolver)
            return promise
        }

        /// Sends `request` without the wire contract's check: for the test that shows libcurl
        /// itself speaks only http and https.
        package func sendSkippingWireContract(_ request: TransportRequest) -> Promise<TransportResponse> {
            let (promise, resolver) = Promise<TransportResponse>.pending()
            start(request, resolver: resolver)
            return promise
        }

        private func start(_ request: TransportRequest, resolver: Resolver<TransportResponse>) {
            let url = request.urlRequest.url
            guard let (loop, origin) = group.loop(for: url, mayMultiplex: mayMultiplex(url)) else {
                resolver.reject(
                    APIError.transport(
                        underlying: CurlLoopStopped(
                            loop: "osprey.curl", reason: "every loop of the transport stopped"),
                        context: .init(request: request.urlRequest)))
                return
            }
            guard
                let transfer = CurlTransfer(
                    request, resolver: resolver, delivery: delivery, loop: loop, settings: settings)
            else {
                resolver.reject(
                    APIError.transport(
                        underlying: URLError(.unknown), context: .init(request: request.urlRequest)))
                return
            }
            // The transfer (and through it this transport) stays alive until the promise settles.
            resolver.onCancel { [self] in
                withExtendedLifetime(self) {
                    _ = loop.submit(
                        .stop(transfer, { .transport(underlying: URLError(.cancelled), context: $0) }))
                }
            }
            transfer.placementOrigin = origin
            // An upgraded connection keeps the transport (and its loops) alive until it ends,
            // however soon the API that opened it is released.
            if transfer.upgradeSink != nil { transfer.transport = self }
            // A loop that stopped since it was chosen: the transfer fails with its reason.
            if !loop.submit(.start(transfer)) {
                transfer.reject(
                    CurlLoopStopped(loop: loop.name, reason: "it stopped before the transfer began"))
            }
        }

        /// Whether a transfer to `url` may speak HTTP/2 (and so stays on its origin's loop).
        private func mayMultiplex(_ url: URL?) -> Bool {
            switch settings.httpVersion {
            case .http1Only: false
            case .http2WhenOffered: url?.scheme?.lowercased() == "https" && CurlLibrary.supportsHTTP2
            case .http2PriorKnowledge: CurlLibrary.supportsHTTP2
            }
        }
    }
#endif

#if canImport(CCurl)
    extension CurlTransport: UpgradingTransport {
        /// Upgrades go on connections of their own, made by libcurl and then read and written by
        /// the loop (see ``CurlHandshake`` and ``CurlChannel``).
        package var supportsUpgrades: Bool { true }
    }
#endif
