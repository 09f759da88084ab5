import Foundation

/// The jar's cookies, indexed so that storing one costs the same however many a response sets
/// or the jar keeps: by (name, domain, path) for replacing, by domain for its limit, and by age
/// for the total limit. The limits hold after every cookie stored, not after a response's batch,
/// so a response with thousands of `Set-Cookie` lines never makes the store grow past them.
struct CookieStore {
    /// What makes two cookies the same cookie (RFC 6265 §5.3 step 11).
    struct Key: Hashable {
        let name: String
        let domain: String
        let path: String

        init(_ cookie: Cookie) {
            name = cookie.name
            domain = cookie.domain
            path = cookie.path
        }
    }

    private struct Entry {
        var cookie: Cookie
        /// When the key was first stored: a replacement keeps it, as it keeps the creation time,
        /// so this order is the order of creation (and of `HTTPCookieStorage`'s cookies, which
        /// have none, before any new one).
        let sequence: UInt64
    }

    let perDomainLimit: Int
    let totalLimit: Int
    private var entries: [Key: Entry] = [:]
    /// Each domain's keys, oldest first: at most `perDomainLimit` + 1 long, so a scan is cheap.
    private var byDomain: [String: [Key]] = [:]
    /// Every key stored, oldest first, from `ageStart` on; an element whose key was removed (or
    /// stored again under a newer sequence) is skipped when met, and the queue is compacted when
    /// such elements outnumber the live ones.
    private var ages: [(sequence: UInt64, key: Key)] = []
    private var ageStart = 0
    private var nextSequence: UInt64 = 0

    init(perDomainLimit: Int, totalLimit: Int) {
        self.perDomainLimit = perDomainLimit
        self.totalLimit = totalLimit
    }

    var count: Int { entries.count }

    /// The cookies, oldest first.
    var cookies: [Cookie] {
        ages[ageStart...].compactMap { age in
            entries[age.key].flatMap { $0.sequence == age.sequence ? $0.cookie : nil }
        }
    }

    subscript(key: Key) -> Cookie? { entries[key]?.cookie }

    /// Stores what a response from an `https` origin (or not) sets, by RFC 6265 §5.3 steps
    /// 11–12 and 6265bis's rule that plain http leaves secure cookies alone; then the limits.
    mutating func store(_ cookies: [Cookie], fromSecureOrigin: Bool, at now: Date) {
        removeExpired(at: now)
        for cookie in cookies { store(cookie, fromSecureOrigin: fromSecureOrigin, at: now) }
    }

    /// Keeps `cookie` as it is (from a storage that already holds it), under the limits.
    mutating func load(_ cookie: Cookie) {
        remove(Key(cookie))
        insert(cookie)
    }

    private mutating func store(_ cookie: Cookie, fromSecureOrigin: Bool, at now: Date) {
        if !fromSecureOrigin, shadowsSecureCookie(cookie) { return }
        let key = Key(cookie)
        if var entry = entries[key] {
            guard !cookie.isExpired(at: now) else {
                remove(key)
                return
            }
            let created = entry.cookie.created
            entry.cookie = cookie
            entry.cookie.created = created
            entries[key] = entry
        } else if !cookie.isExpired(at: now) {
            insert(cookie)
        }
    }

    private mutating func insert(_ cookie: Cookie) {
        let key = Key(cookie)
        entries[key] = Entry(cookie: cookie, sequence: nextSequence)
        ages.append((nextSequence, key))
        nextSequence += 1
        byDomain[key.domain, default: []].append(key)
        if let domainKeys = byDomain[key.domain], domainKeys.count > perDomainLimit {
            remove(domainKeys[0])
        }
        while entries.count > totalLimit, let oldest = popOldest() { remove(oldest) }
        compactAgesIfSparse()
    }

    /// Whether a secure cookie with the same name is kept for a domain that `cookie`'s domain
    /// matches, at a path that `cookie`'s path matches: only the domain and its parents can hold
    /// one, so the search looks at those domains' keys alone.
    private func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
        var domains = [cookie.domain]
        if !CookieRules.isIPAddress(cookie.domain) {
            var rest = cookie.domain[...]
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if !rest.isEmpty { domains.append(String(rest)) }
            }
        }
        return domains.contains { domain in
            (byDomain[domain] ?? []).contains { key in
                key.name == cookie.name && CookieRules.path(cookie.path, matches: key.path)
                    && entries[key]?.cookie.isSecure == true
            }
        }
    }

    private mutating func remove(_ key: Key) {
        guard entries.removeValue(forKey: key) != nil else { return }
        if var domainKeys = byDomain[key.domain], let index = domainKeys.firstIndex(of: key) {
            domainKeys.remove(at: index)
            byDomain[key.domain] = domainKeys.isEmpty ? nil : domainKeys
        }
        compactAgesIfSparse()
    }

    /// RFC 6265 §5.3: expired cookies go before any limit is applied.
    private mutating func removeExpired(at now: Date) {
        for (key, entry) in entries where entry.cookie.isExpired(at: now) { remove(key) }
    }

    /// The oldest live key, taken off the age queue.
    private mutating func popOldest() -> Key? {
        while ageStart < ages.count {
            let age = ages[ageStart]
            ageStart += 1
            if entries[age.key]?.sequence == age.sequence { return age.key }
        }
        return nil
    }

    /// Drops the queue's dead elements once they are the most of it, so its memory stays
    /// proportional to the cookies kept and each element is copied a bounded number of times.
    private mutating func compactAgesIfSparse() {
        guard ages.count > 64, ages.count > 2 * entries.count else { return }
        ages = ages[ageStart...].filter { entries[$0.key]?.sequence == $0.sequence }
        ageStart = 0
    }
}
