/// Which HTTP versions a transport may speak. ``CurlTransport`` takes one; `URLSession` chooses
/// for itself (HTTP/2 over TLS when the server offers it, on Apple platforms and Linux alike).
///
/// The version each exchange used is in its ``RequestMetrics/httpVersion``.
public enum HTTPVersionPolicy: Sendable, Equatable, CaseIterable {
    /// HTTP/1.1 on every connection, TLS or not: for servers or proxies whose HTTP/2 misbehaves,
    /// or to spread requests over several connections.
    case http1Only
    /// HTTP/2 over TLS when the server offers it in the handshake (ALPN), HTTP/1.1 otherwise and
    /// over plain `http`. The default.
    case http2WhenOffered
    /// HTTP/2 from the first byte over plain `http` too (h2c with prior knowledge, no upgrade),
    /// for servers known to speak it, such as a gRPC-style backend or a sidecar; over TLS as
    /// ``http2WhenOffered``. A server that speaks only HTTP/1.1 fails such requests.
    case http2PriorKnowledge
}
