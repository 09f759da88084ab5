import Foundation

/// One stored cookie, as RFC 6265 §5.3 keeps it.
package struct Cookie: Sendable, Equatable {
    package var name: String
    package var value: String
    /// Lower case, without a leading dot: the host that set a host-only cookie, else the
    /// `Domain` attribute.
    package var domain: String
    /// Sent only to exactly ``domain`` (no `Domain` attribute was given), not to its subdomains.
    package var isHostOnly: Bool
    package var path: String
    /// Sent only over https.
    package var isSecure: Bool
    package var isHTTPOnly: Bool
    /// Nil for a session cookie (kept until the jar goes).
    package var expires: Date?
    package var created: Date

    func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether a request to `url` carries this cookie (RFC 6265 §5.4): host (exactly, or a
    /// subdomain of a domain cookie), path, and https for a secure cookie.
    func matches(_ url: URL, at now: Date) -> Bool {
        guard !isExpired(at: now), let host = url.host?.lowercased() else { return false }
        if isSecure, url.scheme?.lowercased() != "https" { return false }
        let hostMatches = isHostOnly ? host == domain : CookieRules.domain(host, matches: domain)
        return hostMatches && CookieRules.path(CookieRules.requestPath(of: url), matches: path)
    }
}

/// The matching rules of RFC 6265 §5.1.3 and §5.1.4.
enum CookieRules {
    /// Domain matching: the same host, or a subdomain of `domain` when `host` is a name (an IP
    /// address matches only itself).
    static func domain(_ host: String, matches domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// Path matching: the same path, or a path below `cookiePath` (at a `/`).
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// The path a cookie without a `Path` attribute gets: the request path up to its last `/`.
    static func defaultPath(for url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
            return "/"
        }
        return String(path[..<slash])
    }

    /// The URL's path as sent (percent-encoded), `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") || host.hasPrefix("[") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.allSatisfy(\.isNumber) }
    }
}
