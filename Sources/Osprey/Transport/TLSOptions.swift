import Foundation

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
    /// (``CurlTransport/init(trustedCertificates:maximumConnectionsPerHost:cookies:proxy:unixSockets:tls:)``).
    /// False trusts that file alone (a private PKI between services), and nothing at all without one.
    public var trustsSystemCertificates: Bool

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
        let pins = pinnedPublicKeys.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return pins.isEmpty ? nil : pins.map { "sha256//" + $0 }.joined(separator: ";")
    }
}
