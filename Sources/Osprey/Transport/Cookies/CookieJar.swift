import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cookies a transport keeps and sends, by the rules of RFC 6265: each response's
/// `Set-Cookie` lines are stored (redirect hops' too), and each request gets the cookies its URL
/// may have (host-only or domain cookies, path, `Secure` only over https, expiry and `Max-Age`).
/// A cookie never goes to a host that could not have set it: a `Domain` that is a public suffix
/// (`co.uk`, `github.io`) is refused, from the system's list through libpsl on Linux and a
/// built-in set of the most used suffixes elsewhere; `__Secure-` and `__Host-` names need the
/// attributes their prefix promises (RFC 6265bis). At most 50 cookies are kept per domain and
/// 3000 in all, the oldest going first.
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
        case memory(Locked<CookieStore>)
        // HTTPCookieStorage is thread-safe (Foundation's documentation).
        case storage(UncheckedStorage)
    }

    /// HTTPCookieStorage is documented thread-safe, but not marked Sendable on every platform.
    private struct UncheckedStorage: @unchecked Sendable {
        let storage: HTTPCookieStorage
    }

    /// The most cookies kept per domain, and in all (RFC 6265 §6.1 asks for at least 50 and
    /// 3000); the least recently made go first, as each cookie is stored. A jar over an
    /// `HTTPCookieStorage` keeps them too: what is beyond them there is deleted on the next store.
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
        backing = .memory(Locked(Self.makeStore()))
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
        case .memory(let cookies): cookies.withLock { $0 = Self.makeStore() }
        case .storage(let wrapped):
            for cookie in wrapped.storage.cookies ?? [] { wrapped.storage.deleteCookie(cookie) }
        }
    }

    // MARK: For transports

    /// The `Cookie` header value the jar adds to a request to `url` whose header fields are
    /// `fields`, or nil: the jar adds none to a request that sets its own `Cookie` (the caller's
    /// header is sent as it is, never merged), nor where no cookie matches. Every transport's
    /// hops, WebSocket handshakes included, follow this one rule.
    func headerValue(for url: URL?, fields: [String: String]?) -> String? {
        guard let url, !(fields ?? [:]).keys.contains(where: { HTTPHeaders.same($0, "Cookie") }) else {
            return nil
        }
        return headerValue(for: url)
    }

    /// Keeps what a hop's response sets, for the URL that hop asked for (a redirect's too).
    func keep(from response: HTTPURLResponse) {
        guard let url = response.url else { return }
        store(from: response, url: url)
    }

    /// The `Cookie` header value for a request to `url`, or nil when it gets none.
    func headerValue(for url: URL) -> String? {
        let cookies = matching(url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores what `lines` (the `Set-Cookie` header lines of a response from `url`) set, under
    /// the limits: the work grows with the lines and the cookies kept, never with their product.
    func store(setCookieLines lines: [String], from url: URL) {
        let now = now()
        let cookies = lines.compactMap { SetCookie.parse($0, from: url, at: now) }
        guard !cookies.isEmpty else { return }
        let isSecure = url.scheme?.lowercased() == "https"
        switch backing {
        case .memory(let stored):
            stored.withLock { $0.store(cookies, fromSecureOrigin: isSecure, at: now) }
        case .storage(let wrapped):
            Self.store(cookies, fromSecureOrigin: isSecure, at: now, into: wrapped.storage)
        }
    }

    /// The storage's cookies go through the same store (and its limits, which the storage does
    /// not keep); then what changed is written back, and what was dropped deleted.
    private static func store(
        _ cookies: [Cookie], fromSecureOrigin: Bool, at now: Date, into storage: HTTPCookieStorage
    ) {
        var model = makeStore()
        var original: [(HTTPCookie, Cookie)] = []
        for httpCookie in storage.cookies ?? [] {
            guard let cookie = makeCookie(httpCookie) else { continue }
            original.append((httpCookie, cookie))
            model.load(cookie)
        }
        model.store(cookies, fromSecureOrigin: fromSecureOrigin, at: now)
        var unchanged = Set<CookieStore.Key>()
        for (httpCookie, cookie) in original {
            let key = CookieStore.Key(cookie)
            if model[key] == cookie, !unchanged.contains(key) {
                unchanged.insert(key)
            } else {
                storage.deleteCookie(httpCookie)
            }
        }
        for cookie in model.cookies where !unchanged.contains(CookieStore.Key(cookie)) {
            if let httpCookie = makeHTTPCookie(cookie) { storage.setCookie(httpCookie) }
        }
    }

    static func makeStore() -> CookieStore {
        CookieStore(perDomainLimit: perDomainLimit, totalLimit: totalLimit)
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
        case .memory(let cookies): cookies.withLock { $0.cookies }
        case .storage(let wrapped): (wrapped.storage.cookies ?? []).compactMap(Self.makeCookie)
        }
    }

    /// The cookies for `url`, longer paths first, then older first (RFC 6265 §5.4).
    private func matching(_ url: URL) -> [Cookie] {
        // An empty jar (the usual case for an API without sessions) costs no clock read or sort.
        let all = stored()
        guard !all.isEmpty else { return [] }
        let now = now()
        let found = all.enumerated().filter { $0.element.matches(url, at: now) }
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
