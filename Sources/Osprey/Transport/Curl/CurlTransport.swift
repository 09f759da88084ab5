#if canImport(CCurl)
    internal import CCurl
    import Foundation
    import Promises

    /// An ``HTTPTransport`` on libcurl's multi interface (Linux): one thread runs every transfer,
    /// reusing connections, without FoundationNetworking's layers in between.
    ///
    /// Work in progress (issue 16): not yet public, not the default, and not yet on par with
    /// ``URLSessionTransport`` (downloads to disk, backpressure and TLS options are missing).
    /// Osprey follows redirects itself by the same rules, applies the size limit to decoded
    /// bytes as they arrive, and times transfers out from the loop.
    package final class CurlTransport: HTTPTransport, SettlesOnItsOwnQueue {
        private let loop: CurlLoop
        /// Where promises settle: never the loop's thread (see ``CurlTransfer``).
        private let delivery = DispatchQueue(label: "osprey.curl.delivery")

        /// A certificate file (PEM) trusted besides the system's store, for private CAs and tests.
        private let trustedCertificates: URL?

        /// A transport, or nil when libcurl cannot be loaded (``CurlLibrary/loadError`` says why).
        /// - Parameter trustedCertificates: A PEM file of CA certificates to trust. It becomes
        ///   libcurl's CA file; its CA folder (`/etc/ssl/certs` in Debian's build) still applies, so
        ///   the system's authorities stay trusted there.
        package init?(trustedCertificates: URL? = nil) {
            guard let loop = CurlLoop() else { return nil }
            self.loop = loop
            self.trustedCertificates = trustedCertificates
        }

        deinit {
            loop.submit(.shutDown)
        }

        package func send(_ request: TransportRequest) -> Promise<TransportResponse> {
            let (promise, resolver) = Promise<TransportResponse>.pending()
            guard
                let transfer = CurlTransfer(
                    request, resolver: resolver, delivery: delivery, loop: loop,
                    trustedCertificates: trustedCertificates)
            else {
                resolver.reject(
                    APIError.transport(
                        underlying: URLError(.unknown), context: .init(request: request.urlRequest)))
                return promise
            }
            // The transfer (and through it this transport) stays alive until the promise settles.
            resolver.onCancel { [self] in
                withExtendedLifetime(self) {
                    loop.submit(
                        .stop(transfer, { .transport(underlying: URLError(.cancelled), context: $0) }))
                }
            }
            loop.submit(.start(transfer))
            return promise
        }
    }
#endif
