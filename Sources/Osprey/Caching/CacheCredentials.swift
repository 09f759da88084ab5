import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Who a cached response belongs to: the credentials of the request as it went out, kept only as
/// a keyed digest (``HMACSHA256``) so that no secret reaches a cache file or a memory dump in
/// clear, and an entry stored for one set of credentials is served to the same set alone.
///
/// A request's credentials are its sensitive headers (``HTTPHeaders/isSensitive(_:declared:)``:
/// `Authorization`, `Cookie`, API keys, the API's declared names), the cookies its transport's jar
/// adds at the wire, and the user and password in its URL.
package struct CacheCredentials: Sendable {
    /// The key of the digests: random per memory cache, kept in a disk cache's folder (readable
    /// by its owner only) so that a new process finds its entries again.
    package let key: [UInt8]
    /// The header names the API declared secret (``APIConfiguration/sensitiveHeaders``).
    package let declared: Set<String>

    package init(key: [UInt8], declared: Set<String> = []) {
        self.key = key
        self.declared = declared
    }

    /// The digest of `request`'s credentials, or nil when it carries none.
    package func digest(of request: URLRequest, declared: Set<String>) -> String? {
        var material: [String] = []
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        for name in Set(headers.names.map { $0.lowercased() }).sorted()
        where HTTPHeaders.isSensitive(name, declared: declared) {
            material.append("\(name): \(headers.values(for: name).joined(separator: ", "))")
        }
        if let url = request.url, url.user != nil || url.password != nil {
            material.append("userinfo: \(url.user ?? ""):\(url.password ?? "")")
        }
        guard !material.isEmpty else { return nil }
        return digest(material.joined(separator: "\n"))
    }

    /// The digest of `text`, marked as one.
    package func digest(_ text: String) -> String {
        "hmac-sha256:" + HMACSHA256.hex(Array(text.utf8), key: key)
    }

    /// `request` as its transport sends it: with the cookies `jar` adds at the wire (a request's
    /// own `Cookie` is left alone, as the transports do).
    static func asSent(_ request: URLRequest, jar: CookieJar?) -> URLRequest {
        guard let jar, request.value(forHTTPHeaderField: "Cookie") == nil, let url = request.url,
            let cookies = jar.headerValue(for: url)
        else { return request }
        var sent = request
        sent.setValue(cookies, forHTTPHeaderField: "Cookie")
        return sent
    }

    /// `url` without its user and password: a cache key or a stored URL never holds them.
    static func withoutUserInfo(_ url: URL) -> URL {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }
}
