import Foundation

#if canImport(Security)
    import Security
#endif

/// What a transport proves and checks in TLS beyond the system's defaults: a client certificate
/// for mutual TLS, public keys the server must have, and the oldest TLS version accepted.
///
/// ```swift
/// let tls = TLSOptions(
///     clientCertificate: URL(fileURLWithPath: "/etc/service/client.pem"),
///     clientKey: URL(fileURLWithPath: "/etc/service/client.key"),
///     pinnedPublicKeys: ["Jx4Cuo1Jd1R8Zl6ox0aJ2+vJ1dfnD+7QCxIAXuU0xOE="])
/// let transport = CurlTransport(tls: tls)
/// ```
///
/// A pin is the base64 SHA-256 of the server certificate's SubjectPublicKeyInfo. Get it from a
/// certificate with `openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64` (or from a live server: `openssl s_client -connect
/// host:443 </dev/null | openssl x509 -pubkey -noout | …` and the same pipe). Give several, the
/// current key and the next, so that rotating the server's key does not lock clients out.
public struct TLSOptions: Sendable, Equatable {
    /// The oldest TLS version a connection may use.
    public enum Version: Sendable, Equatable {
        /// TLS 1.2 (RFC 5246), the default.
        case tls12
        /// TLS 1.3 (RFC 8446) only.
        case tls13
    }

    /// A PEM file with the client's certificate (and any intermediates), for servers that ask
    /// for one.
    public var clientCertificate: URL?
    /// A PEM file with the certificate's private key (the certificate's file when nil).
    public var clientKey: URL?
    /// The private key's passphrase, when it is encrypted.
    public var clientKeyPassword: String?
    /// Base64 SHA-256 digests of the SubjectPublicKeyInfo the server's certificate may have; empty
    /// for no pinning. A connection to a server with another key fails with a transport error
    /// that says so.
    public var pinnedPublicKeys: [String]
    /// The oldest TLS version accepted.
    public var minimumVersion: Version
    /// Whether the system's trust roots apply besides the transport's own CA file
    /// (``CurlTransport/init(trustedCertificates:maximumConnectionsPerHost:cookies:proxy:unixSockets:tls:httpVersion:loops:)``).
    /// False trusts that file alone (a private PKI between services), and nothing at all without one.
    public var trustsSystemCertificates: Bool
    #if canImport(Security)
        /// Apple platforms: an identity (a certificate and its private key, from the keychain or
        /// a PKCS #12 file) that ``URLSessionTransport`` presents to servers that ask for a client
        /// certificate.
        public var clientIdentity: ClientIdentity?
    #endif

    /// Options; the defaults change nothing but require TLS 1.2 or later.
    /// - Parameters:
    ///   - clientCertificate: A PEM file with the client's certificate.
    ///   - clientKey: A PEM file with its private key.
    ///   - clientKeyPassword: The key's passphrase.
    ///   - pinnedPublicKeys: Base64 SHA-256 digests of the keys the server may have.
    ///   - minimumVersion: The oldest TLS version accepted.
    ///   - trustsSystemCertificates: Whether the system's trust roots apply besides the
    ///     transport's own CA file.
    public init(
        clientCertificate: URL? = nil, clientKey: URL? = nil, clientKeyPassword: String? = nil,
        pinnedPublicKeys: [String] = [], minimumVersion: Version = .tls12,
        trustsSystemCertificates: Bool = true
    ) {
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.clientKeyPassword = clientKeyPassword
        self.pinnedPublicKeys = pinnedPublicKeys
        self.minimumVersion = minimumVersion
        self.trustsSystemCertificates = trustsSystemCertificates
    }

    /// The pins as libcurl takes them: `sha256//<base64>;sha256//<base64>`; nil without pins.
    var curlPins: String? {
        let pins = PublicKeyPin.normalized(pinnedPublicKeys)
        return pins.isEmpty ? nil : pins.map { "sha256//" + $0 }.joined(separator: ";")
    }

    /// What ``URLSessionTransport`` cannot apply of these options on this platform, said so that
    /// a request fails before any I/O instead of going out with less protection than asked
    /// for; nil when it applies them all.
    var unsupportedByURLSession: String? {
        var missing: [String] = []
        if clientCertificate != nil || clientKey != nil {
            missing.append("a client certificate from PEM files")
        }
        if !trustsSystemCertificates { missing.append("trust roots other than the system's") }
        #if canImport(FoundationNetworking)
            if !PublicKeyPin.normalized(pinnedPublicKeys).isEmpty { missing.append("pinned public keys") }
            if minimumVersion == .tls13 { missing.append("a minimum TLS version of 1.3") }
        #endif
        guard !missing.isEmpty else { return nil }
        #if canImport(FoundationNetworking)
            let platform = "on Linux (FoundationNetworking evaluates no server trust)"
        #else
            let platform = "(it applies pins, the minimum version and `clientIdentity`)"
        #endif
        return "URLSessionTransport cannot apply TLSOptions' \(missing.joined(separator: ", ")) \(platform): "
            + "use CurlTransport"
    }
}

#if canImport(Security)
    /// A `SecIdentity` for mutual TLS with ``URLSessionTransport`` on Apple platforms (see
    /// `TLSOptions.clientIdentity`).
    public struct ClientIdentity: @unchecked Sendable, Equatable {
        // Unchecked: a SecIdentity is an immutable Core Foundation object, safe to share.
        /// The identity.
        public let identity: SecIdentity
        /// The certificates sent after the identity's own (intermediates), if the server needs them.
        public let intermediates: [SecCertificate]

        /// An identity, and the intermediate certificates to send with it.
        public init(_ identity: SecIdentity, intermediates: [SecCertificate] = []) {
            self.identity = identity
            self.intermediates = intermediates
        }

        /// Whether both hold the same identity and intermediates.
        public static func == (left: ClientIdentity, right: ClientIdentity) -> Bool {
            CFEqual(left.identity, right.identity) && left.intermediates.count == right.intermediates.count
                && zip(left.intermediates, right.intermediates).allSatisfy { CFEqual($0, $1) }
        }
    }
#endif
