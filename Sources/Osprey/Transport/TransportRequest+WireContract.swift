import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The wire contract: what every request must satisfy before a transport sends a byte of it.
///
/// Stages before the transport (building, adapters, a `Provider`'s modifiers and interceptors,
/// retries) may change a request in any way, so the check lives here, at the seam, and every
/// transport calls it for every hop, redirects included. Stages may check earlier for a better
/// error; never instead of this.
extension TransportRequest {
    /// Checks the request against the wire contract: an RFC 9110 token for the method, header
    /// names that are tokens, header values and a URL without CR, LF, NUL or another control
    /// character, and an `http` or `https` URL with a host.
    ///
    /// Every transport calls it before any I/O (``CurlTransport`` and ``URLSessionTransport``
    /// do; a transport of your own should too).
    /// - Throws: ``APIError/invalidRequest(reason:)`` saying what is wrong; nothing was sent and
    ///   no body file was opened.
    public func validate() throws {
        try Self.validate(urlRequest)
    }

    /// The same check on a request alone (a redirect's next hop).
    static func validate(_ request: URLRequest) throws {
        let method = request.httpMethod ?? "GET"
        guard HTTPToken.isValid(method) else {
            throw APIError.invalidRequest(
                reason: "method \(method.debugDescription) is not an RFC 9110 token")
        }
        guard let url = request.url else { throw APIError.invalidRequest(reason: "the request has no URL") }
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw APIError.invalidRequest(
                reason:
                    "only http and https URLs are sent, not \(scheme.map { "\($0):" } ?? "a URL without a scheme")"
            )
        }
        guard let host = url.host, !host.isEmpty else {
            throw APIError.invalidRequest(reason: "the URL has no host")
        }
        // The target and host go on the request line and in `Host`: a space or a control byte
        // there would split the request.
        guard url.absoluteString.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw APIError.invalidRequest(
                reason: "the URL holds a space, CR, LF, NUL or another control character: "
                    + Redaction.url(url.absoluteString).debugDescription)
        }
        try HTTPHeaders(request.allHTTPHeaderFields ?? [:]).validate()
    }
}

extension TransportRequest {
    /// The headers that frame a request's body. A transport sets them from the body alone and
    /// drops a caller's: a `Content-Length: 5` beside 21 bytes would leave 16 to be read as the
    /// next request on a kept-alive connection, and a `Transfer-Encoding` the transport does not
    /// apply makes a body that servers and proxies read differently.
    static let framingHeaderNames = ["Content-Length", "Transfer-Encoding"]

    /// Whether `name` is one of ``framingHeaderNames`` (in any case).
    static func isFraming(_ name: String) -> Bool {
        framingHeaderNames.contains { HTTPHeaders.same($0, name) }
    }

    /// `request` without the framing headers a caller gave it (see ``framingHeaderNames``).
    static func withoutCallersFraming(_ request: URLRequest) -> URLRequest {
        var request = request
        for name in (request.allHTTPHeaderFields ?? [:]).keys where isFraming(name) {
            request.setValue(nil, forHTTPHeaderField: name)
        }
        return request
    }
}
