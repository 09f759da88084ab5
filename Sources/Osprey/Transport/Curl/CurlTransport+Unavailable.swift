#if !canImport(CCurl)
    import Foundation
    import Promises

    /// The libcurl transport, which Osprey uses on Linux only: on this platform the initialiser
    /// returns nil and ``unavailableReason`` says why, so code that chooses a transport builds
    /// everywhere (`CurlTransport() ?? URLSessionTransport()`).
    public final class CurlTransport: HTTPTransport, CookieJarTransport {
        /// Not used here: there are no loops and no pools (see the libcurl transport's).
        package static let idleConnectionAge = Locked(118)

        /// Returns nil: libcurl is not used on this platform.
        /// - Parameters:
        ///   - trustedCertificates: Ignored here.
        ///   - maximumConnectionsPerHost: Ignored here.
        ///   - cookies: Ignored here.
        ///   - proxy: Ignored here.
        ///   - unixSockets: Ignored here.
        ///   - tls: Ignored here.
        ///   - httpVersion: Ignored here.
        ///   - loops: Ignored here.
        public init?(
            trustedCertificates: URL? = nil, maximumConnectionsPerHost: Int = 16,
            cookies: CookieJar? = CookieJar(), proxy: HTTPProxy? = nil, unixSockets: [String: String] = [:],
            tls: TLSOptions = TLSOptions(), httpVersion: HTTPVersionPolicy = .http2WhenOffered,
            loops: Int? = nil
        ) {
            return nil
        }

        /// Returns nil: libcurl is not used on this platform.
        /// - Parameters:
        ///   - trustedCertificates: Ignored here.
        ///   - maximumConnectionsPerHost: Ignored here.
        ///   - cookies: Ignored here.
        ///   - proxy: Ignored here.
        ///   - unixSockets: Ignored here.
        ///   - tls: Ignored here.
        public init?(
            trustedCertificates: URL? = nil, maximumConnectionsPerHost: Int = 16,
            cookies: CookieJar? = CookieJar(), proxy: HTTPProxy? = nil, unixSockets: [String: String] = [:],
            tls: TLSOptions = TLSOptions()
        ) {
            return nil
        }

        /// Always nil here.
        public var cookies: CookieJar? { nil }

        /// Why libcurl cannot be used here.
        public static var unavailableReason: String? {
            "Osprey uses libcurl on Linux only; URLSession is the transport on this platform"
        }

        /// Always nil here.
        public static var libraryVersion: String? { nil }

        /// Never called: no instance exists on this platform.
        public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
            Promise(
                error: APIError.transport(
                    underlying: URLError(.unsupportedURL), context: .init(request: request.urlRequest)))
        }
    }
#endif
