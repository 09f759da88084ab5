import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cookies a transport keeps and sends, by the rules of RFC 6265: each response's
/// `Set-Cookie` lines are stored (redirect hops' too), and each request gets the cookies its URL
/// may have (host-only or domain cookies, path, `Secure` only over https, expiry and `Max-Age`).
/// A cookie never goes to a host that could not have set it.
///
/// Every transport has its own jar, in memory by default (as URLSession's ephemeral
/// configuration): two APIs with their own transports do not see each other's cookies. Pass
/// `cookies: CookieJar(storage: .shared)` to share the system's store, or `cookies: nil` for
/// none.
///
/// ```swift
/// let jar = CookieJar()
/// let api = SessionAPI(responseParser: JSONParser(), transport: CurlTransport(cookies: jar))
/// // … after logging in:
/// print(jar.cookies(for: URL(string: "https://api.example.com/")!).map(\.name))
/// ```
///
/// A request that already has a `Cookie` header (set by the caller, an adapter or an
/// interceptor) is sent with it as it is, without the jar's cookies. The jar's cookies are
/// added at the wire only, so they never appear in a request an error or a monitor shows.
public final class CookieJar: Sendable {
    private enum Backing: Sendable {
        case memory(Locked<[Cookie]>)
        // HTTPCookieStorage is thread-safe (Foundation's documentation).
        case storage(UncheckedStorage)
    }

    /// HTTPCookieStorage is documented thread-safe, but not marked Sendable on every platform.
    private struct UncheckedStorage: @unchecked Sendable {
        let storage: HTTPCookieStorage
    }

    /// The most cookies kept per domain, and in all (RFC 6265 §6.1 asks for at least 50 and
    /// 3000); the least recently made go first.
    static let perDomainLimit = 50
    static let totalLimit = 3000

    private let backing: Backing
    private let now: @Sendable () -> Date

    /// An empty jar in memory.
    public convenience init() {
        self.init(now: Date.init)
    }

    /// A jar whose cookies live in `storage` (for example `HTTPCookieStorage.shared`, to share
    /// them with other code). Osprey's rules decide what is stored and sent, not the storage's
    /// accept policy.
    public init(storage: HTTPCookieStorage) {
        backing = .storage(UncheckedStorage(storage: storage))
        now = Date.init
    }

    /// An empty jar in memory with a clock of the test's.
    init(now: @escaping @Sendable () -> Date) {
        backing = .memory(Locked([]))
        self.now = now
    }

    /// The cookies a request to `url` would carry, in the order they are sent.
    public func cookies(for url: URL) -> [HTTPCookie] {
        matching(url).compactMap(Self.makeHTTPCookie)
    }

    /// Every cookie kept that has not expired.
    public var allCookies: [HTTPCookie] {
        let now = now()
        return stored().filter { !$0.isExpired(at: now) }.compactMap(Self.makeHTTPCookie)
    }

    /// Forgets every cookie.
    public func removeAll() {
        switch backing {
        case .memory(let cookies): cookies.withLock { $0 = [] }
        case .storage(let wrapped):
            for cookie in wrapped.storage.cookies ?? [] { wrapped.storage.deleteCookie(cookie) }
        }
    }

    // MARK: For transports

    /// The `Cookie` header value for a request to `url`, or nil when it gets none.
    func headerValue(for url: URL) -> String? {
        let cookies = matching(url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores what `lines` (the `Set-Cookie` header lines of a response from `url`) set.
    func store(setCookieLines lines: [String], from url: URL) {
        let now = now()
        let cookies = lines.compactMap { SetCookie.parse($0, from: url, at: now) }
        guard !cookies.isEmpty else { return }
        switch backing {
        case .memory(let stored):
            stored.withLock { stored in
                for cookie in cookies { Self.store(cookie, into: &stored, from: url, at: now) }
                Self.evict(from: &stored, at: now)
            }
        case .storage(let wrapped):
            var stored = (wrapped.storage.cookies ?? []).compactMap(Self.makeCookie)
            let before = stored
            for cookie in cookies { Self.store(cookie, into: &stored, from: url, at: now) }
            for old in before where !stored.contains(old) {
                if let match = wrapped.storage.cookies?.first(where: { Self.makeCookie($0) == old }) {
                    wrapped.storage.deleteCookie(match)
                }
            }
            for new in stored where !before.contains(new) {
                if let cookie = Self.makeHTTPCookie(new) { wrapped.storage.setCookie(cookie) }
            }
        }
    }

    /// Stores what a response's header fields set (the joined form `HTTPURLResponse` keeps).
    func store(from response: HTTPURLResponse, url: URL) {
        let joined = response.allHeaderFields.compactMap { name, value -> String? in
            guard let name = name as? String, HTTPHeaders.same(name, "Set-Cookie") else { return nil }
            return value as? String
        }
        store(setCookieLines: joined.flatMap(SetCookie.splitJoined), from: url)
    }

    // MARK: The storage model

    private func stored() -> [Cookie] {
        switch backing {
        case .memory(let cookies): cookies.withLock { $0 }
        case .storage(let wrapped): (wrapped.storage.cookies ?? []).compactMap(Self.makeCookie)
        }
    }

    /// The cookies for `url`, longer paths first, then older first (RFC 6265 §5.4).
    private func matching(_ url: URL) -> [Cookie] {
        let now = now()
        let found = stored().enumerated().filter { $0.element.matches(url, at: now) }
        return found.sorted { first, second in
            if first.element.path.count != second.element.path.count {
                return first.element.path.count > second.element.path.count
            }
            if first.element.created != second.element.created {
                return first.element.created < second.element.created
            }
            return first.offset < second.offset
        }.map(\.element)
    }

    /// RFC 6265 §5.3 steps 11–12, with 6265bis's rule that plain http leaves secure cookies alone.
    private static func store(_ cookie: Cookie, into stored: inout [Cookie], from url: URL, at now: Date) {
        if url.scheme?.lowercased() != "https",
            stored.contains(where: {
                $0.isSecure && $0.name == cookie.name && CookieRules.domain(cookie.domain, matches: $0.domain)
                    && CookieRules.path(cookie.path, matches: $0.path)
            })
        {
            return
        }
        var cookie = cookie
        if let index = stored.firstIndex(where: { $0.hasSameKey(as: cookie) }) {
            cookie.created = stored[index].created
            stored.remove(at: index)
        }
        if !cookie.isExpired(at: now) { stored.append(cookie) }
    }

    /// Drops expired cookies, then the oldest beyond the limits.
    private static func evict(from stored: inout [Cookie], at now: Date) {
        stored.removeAll { $0.isExpired(at: now) }
        let crowded = Dictionary(grouping: stored.indices, by: { stored[$0].domain })
            .filter { $0.value.count > perDomainLimit }
        if !crowded.isEmpty {
            var dropped = Set<Int>()
            for (_, indices) in crowded {
                let oldest = indices.sorted { stored[$0].created < stored[$1].created }
                dropped.formUnion(oldest.prefix(indices.count - perDomainLimit))
            }
            stored = stored.indices.filter { !dropped.contains($0) }.map { stored[$0] }
        }
        if stored.count > totalLimit {
            stored.sort { $0.created < $1.created }
            stored.removeFirst(stored.count - totalLimit)
        }
    }

    // MARK: HTTPCookie

    /// An `HTTPCookie` for a stored cookie: a domain cookie's domain has a leading dot, a
    /// host-only cookie's has none (the convention `HTTPCookieStorage` follows).
    static func makeHTTPCookie(_ cookie: Cookie) -> HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .path: cookie.path,
            .domain: cookie.isHostOnly ? cookie.domain : "." + cookie.domain,
        ]
        if cookie.isSecure { properties[.secure] = "TRUE" }
        if let expires = cookie.expires { properties[.expires] = expires }
        if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }

    /// The stored form of an `HTTPCookie` (its creation time unknown: the distant past).
    static func makeCookie(_ cookie: HTTPCookie) -> Cookie? {
        var domain = cookie.domain.lowercased()
        let isHostOnly = !domain.hasPrefix(".")
        if !isHostOnly { domain.removeFirst() }
        guard !domain.isEmpty else { return nil }
        return Cookie(
            name: cookie.name, value: cookie.value, domain: domain, isHostOnly: isHostOnly,
            path: cookie.path.isEmpty ? "/" : cookie.path, isSecure: cookie.isSecure,
            isHTTPOnly: cookie.isHTTPOnly, expires: cookie.expiresDate, created: .distantPast)
    }
}
