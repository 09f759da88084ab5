#if canImport(CCurl)
    internal import CCurl
    import Foundation
    import Promises

    /// An ``HTTPTransport`` on libcurl's multi interface, the default on Linux: one thread runs
    /// every transfer of the transport, reusing connections, without FoundationNetworking's
    /// layers in between (about three times raw `URLSession`'s throughput for small requests).
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
        private let loop: CurlLoop
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
        public convenience init?(
            trustedCertificates: URL? = nil, maximumConnectionsPerHost: Int = 16,
            cookies: CookieJar? = CookieJar(), proxy: HTTPProxy? = nil, unixSockets: [String: String] = [:],
            tls: TLSOptions = TLSOptions()
        ) {
            self.init(
                trustedCertificates: trustedCertificates,
                maximumConnectionsPerHost: maximumConnectionsPerHost, cookies: cookies,
                proxies: proxy.map(ProxySettings.init)
                    ?? ProxySettings(environment: ProcessInfo.processInfo.environment),
                unixSockets: unixSockets, tls: tls)
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

        private init?(
            trustedCertificates: URL?, maximumConnectionsPerHost: Int, cookies: CookieJar?,
            proxies: ProxySettings, unixSockets: [String: String] = [:], tls: TLSOptions = TLSOptions()
        ) {
            guard let loop = CurlLoop(maximumConnectionsPerHost: maximumConnectionsPerHost) else {
                return nil
            }
            self.loop = loop
            settings = CurlTransfer.Settings(
                trustedCertificates: trustedCertificates, proxies: proxies, cookies: cookies,
                unixSockets: Dictionary(unixSockets.map { ($0.key.lowercased(), $0.value) }) { _, last in last
                },
                tls: tls)
        }

        /// How many idle pooled connections were retired because bytes arrived on them (tests).
        package var retiredConnections: Int {
            get async { await loop.retiredConnections }
        }

        /// The transport's cookies, or nil when it keeps none.
        public var cookies: CookieJar? { settings.cookies }

        deinit {
            loop.submit(.shutDown)
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
                    loop.submit(
                        .stop(transfer, { .transport(underlying: URLError(.cancelled), context: $0) }))
                }
            }
            loop.submit(.start(transfer))
        }
    }
#endif
