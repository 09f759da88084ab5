import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response kept by an ``HTTPCache``: its head, its body, the request header values it varies
/// on, and when it was asked for and received (for its age, RFC 9111 §4.2.3).
package struct CachedResponse: Sendable, Equatable {
    /// What is written before the body: everything but the body.
    package struct Head: Codable, Sendable, Equatable {
        /// `METHOD url`: the entry's key.
        package var key: String
        package var url: String
        package var statusCode: Int
        package var httpVersion: String?
        /// Header fields in order, as `[name, value]`.
        package var fields: [[String]]
        /// The request's values of the headers the response varies on (lower-case names), absent
        /// when the request had none; a credential's value only as its digest.
        package var varied: [String: String]
        /// The digest of the credentials the request carried (``CacheCredentials``): the entry
        /// is served to a request with the same credentials alone. Nil for a request without.
        package var credentials: String?
        /// Seconds since 1970 when the request went out and when its response arrived.
        package var requestTime: Double
        package var responseTime: Double
        /// The body's length and checksum: a stored entry that does not match them is corrupt.
        package var bodyLength: Int
        package var bodyChecksum: UInt64

        package init(
            key: String, url: String, statusCode: Int, httpVersion: String?, fields: [[String]],
            varied: [String: String], requestTime: Double, responseTime: Double, bodyLength: Int,
            bodyChecksum: UInt64, credentials: String? = nil
        ) {
            self.key = key
            self.url = url
            self.statusCode = statusCode
            self.httpVersion = httpVersion
            self.fields = fields
            self.varied = varied
            self.requestTime = requestTime
            self.responseTime = responseTime
            self.bodyLength = bodyLength
            self.bodyChecksum = bodyChecksum
            self.credentials = credentials
        }
    }

    package var head: Head
    package var body: Data

    package init(head: Head, body: Data) {
        self.head = head
        self.body = body
    }

    /// A new entry for `response` to `request` (as sent: with its jar's cookies), which carried
    /// the credentials whose digest is `credentials`.
    init(
        key: String, request: URLRequest, response: TransportResponse, requestTime: Date, responseTime: Date,
        credentials: String?, keying: CacheCredentials
    ) {
        let headers = response.headers
        let url = response.request.url ?? request.url
        head = Head(
            // For reading only: the answer served takes the request's URL, which matched the key.
            key: key, url: url.map { Redaction.urlKeepingPlainQueryValues($0) } ?? "",
            statusCode: response.statusCode, httpVersion: nil,
            fields: headers.map { [$0.name, $0.value] },
            varied: Self.variedValues(names: Self.varyNames(headers), of: request, keying: keying),
            requestTime: requestTime.timeIntervalSince1970, responseTime: responseTime.timeIntervalSince1970,
            bodyLength: response.data.count, bodyChecksum: Self.checksum(response.data),
            credentials: credentials)
        body = response.data
    }

    package var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        for field in head.fields where field.count == 2 { headers.add(name: field[0], value: field[1]) }
        return headers
    }

    /// Bytes the entry takes in a store: its body and a rough measure of its head.
    var size: Int { body.count + head.fields.reduce(256) { $0 + $1.reduce(4) { $0 + $1.utf8.count } } }

    /// Whether the stored body is the one that was stored.
    package var isIntact: Bool { body.count == head.bodyLength && Self.checksum(body) == head.bodyChecksum }

    // MARK: Vary (RFC 9111 §4.1)

    /// The header names in the response's `Vary`, lower case; `*` among them when it varies on
    /// everything.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    private static func variedValues(names: [String], of request: URLRequest, keying: CacheCredentials)
        -> [String: String]
    {
        var values: [String: String] = [:]
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        for name in names {
            if let value = variedValue(of: name, in: headers, keying: keying) { values[name] = value }
        }
        return values
    }

    /// The value kept for `name`: normalized, and only as a digest for a credential (`Vary:
    /// Cookie` or `Vary: Authorization` would otherwise write the secret into the entry).
    private static func variedValue(of name: String, in headers: HTTPHeaders, keying: CacheCredentials)
        -> String?
    {
        let found = headers.values(for: name)
        guard !found.isEmpty else { return nil }
        let value = normalized(found)
        return HTTPHeaders.isSensitive(name, declared: keying.declared) ? keying.digest(value) : value
    }

    /// Whether `request` (as sent, with its jar's cookies) asks for what this entry answered: the
    /// same credentials (`credentials` is their digest), and the same values of every header the
    /// response varies on (whitespace around commas aside).
    package func matches(_ request: URLRequest, credentials: String?, keying: CacheCredentials) -> Bool {
        guard credentials == head.credentials else { return false }
        let names = Self.varyNames(headers)
        if names.contains("*") { return false }
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        return names.allSatisfy { name in
            Self.variedValue(of: name, in: headers, keying: keying) == head.varied[name]
        }
    }

    private static func normalized(_ values: [String]) -> String {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ",")
    }

    // MARK: Freshness (RFC 9111 §4.2)

    /// How long the response is fresh for: for a shared cache its `s-maxage` first (a private
    /// cache ignores it), then `max-age`, else `Expires` minus `Date` (an invalid `Expires` means
    /// already expired), else, only when `heuristic`, a tenth of the time since `Last-Modified`,
    /// at most a day.
    package func freshnessLifetime(heuristic: Bool, shared: Bool = false) -> TimeInterval {
        let headers = headers
        let directives = CacheControl(headers)
        if shared, let sharedMaxAge = directives.seconds("s-maxage") { return sharedMaxAge }
        if let maxAge = directives.seconds("max-age") { return maxAge }
        if let expires = headers["Expires"] {
            guard let expiry = CookieDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date(headers)))
        }
        guard heuristic, Self.heuristicallyCacheable.contains(head.statusCode),
            let modified = headers["Last-Modified"].flatMap(CookieDate.parse)
        else { return 0 }
        return min(86_400, max(0, date(headers).timeIntervalSince(modified) / 10))
    }

    /// The response's age at `now`: what it had when it arrived (its `Age`, the time it took,
    /// how far its `Date` lags), plus the time since.
    package func age(at now: Date) -> TimeInterval {
        let headers = headers
        let responseTime = Date(timeIntervalSince1970: head.responseTime)
        let apparentAge = max(0, responseTime.timeIntervalSince(date(headers)))
        let ageValue = headers["Age"].flatMap(Self.deltaSeconds) ?? 0
        let responseDelay = max(0, head.responseTime - head.requestTime)
        let initialAge = max(apparentAge, max(0, ageValue) + responseDelay)
        return initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// A delta-seconds value (digits only, RFC 9111 §1.2.2), at most 2^31.
    static func deltaSeconds(_ text: String) -> TimeInterval? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return TimeInterval(Int(digits.prefix(10)).map { min($0, 1 << 31) } ?? 1 << 31)
    }

    private func date(_ headers: HTTPHeaders) -> Date {
        headers["Date"].flatMap(CookieDate.parse) ?? Date(timeIntervalSince1970: head.responseTime)
    }

    /// Statuses a cache may store without explicit freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    // MARK: Updating and serving

    /// The entry refreshed by a `304` (RFC 9111 §4.3.4): the 304's fields replace the stored
    /// ones of the same name, except those that describe the body.
    package func refreshed(by notModified: HTTPHeaders, requestTime: Date, responseTime: Date)
        -> CachedResponse
    {
        var headers = headers
        // A cookie a 304 sets is the jar's, never the cache's: a stored `Set-Cookie` would be
        // handed to whoever is served the entry next.
        let kept: Set<String> = [
            "content-length", "content-encoding", "transfer-encoding", "content-range", "set-cookie",
            "set-cookie2",
        ]
        for name in Set(notModified.names.map { $0.lowercased() }) where !kept.contains(name) {
            headers.remove(name: name)
            for value in notModified.values(for: name) { headers.add(name: name, value: value) }
        }
        var refreshed = self
        refreshed.head.fields = headers.map { [$0.name, $0.value] }
        refreshed.head.requestTime = requestTime.timeIntervalSince1970
        refreshed.head.responseTime = responseTime.timeIntervalSince1970
        return refreshed
    }

    /// The entry as a transport's response to `request`, with its current `Age`.
    func response(to request: URLRequest, age: TimeInterval, status: CacheStatus) -> TransportResponse {
        var headers = headers
        headers.remove(name: "Age")
        headers.add(name: "Age", value: String(Int(min(age, 2_147_483_648))))
        let url = request.url ?? URL(string: head.url) ?? URL(fileURLWithPath: "/")
        var response = TransportResponse(
            url: url, statusCode: head.statusCode, httpVersion: head.httpVersion ?? "HTTP/1.1",
            headers: headers,
            data: body, request: request)
        response.cacheStatus = status
        return response
    }

    /// FNV-1a over the body: enough to tell a damaged entry from a sound one.
    package static func checksum(_ data: Data) -> UInt64 {
        data.withUnsafeBytes { FNV1a.hash($0) }
    }
}
