import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP cache for an API's requests (RFC 9111, as a private cache), in memory or in a folder,
/// the same on every transport. Off by default: set ``APIConfiguration/cache``.
///
/// ```swift
/// api.configuration.cache = HTTPCache(maximumBytes: 20 << 20)                  // in memory
/// let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-cache")
/// api.configuration.cache = try HTTPCache(folder: folder)                       // on disk
/// ```
///
/// What it keeps and serves:
/// - Only `GET` responses are stored (a `HEAD` is answered from a fresh `GET`), with a status
///   cacheable by default or explicit freshness, unless the request or the response says
///   `no-store`, or the response varies on `*` or sets a cookie.
/// - It decides on the request as sent: with the cookies the transport's ``CookieJar`` adds.
///   A response to a request with credentials (`Authorization`, `Cookie`, an API key: see
///   ``HTTPHeaders/isSensitive(_:declared:)``; jar cookies; a user and password in the URL) is
///   served only to a request with the same credentials, compared by a keyed digest: no
///   credential is written into an entry, and one user's answer never reaches another.
/// - A fresh response is served without a request: fresh for its `max-age` (`s-maxage` is for
///   shared caches and ignored), else until its `Expires`; heuristic freshness (a tenth of the
///   time since `Last-Modified`) only when asked for. `Vary` is respected.
/// - A stale one, or one marked `no-cache`, is validated: its `ETag` goes out as
///   `If-None-Match` and its `Last-Modified` as `If-Modified-Since`; a `304` refreshes the stored
///   headers and the caller gets the stored body, with ``CacheStatus/revalidated``.
/// - A `POST`, `PUT`, `PATCH`, `DELETE` (any unsafe method) that succeeds removes what is stored
///   for its URL, and for its `Location` and `Content-Location` on the same origin.
///
/// Per request, the request's own `Cache-Control` decides: `no-cache` (or `max-age=0`) forces a
/// validation, `no-store` skips the cache both ways, `max-age` and `min-fresh` ask for fresher
/// answers, `max-stale` (with a bound in seconds, or none) takes a stale answer without asking the
/// server (not one whose response said `must-revalidate`), `only-if-cached` answers `504` rather
/// than go to the network (with `max-stale`: what is stored, stale or not, for an app offline).
/// A request with its own conditional or `Range` headers goes to the server untouched, so its
/// caller sees the `304` or `206` it asked for. Downloads and streams pass by the cache.
///
/// Size limits hold: the least recently used entries go first. A disk cache is found again by a
/// new process on the same folder; an entry file that was damaged is deleted, never served.
public final class HTTPCache: Sendable {
    private let storage: any CacheStorage
    private let usesHeuristicFreshness: Bool
    private let now: @Sendable () -> Date
    /// Whether the cache follows the rules of a shared cache (RFC 9111 §3.5): see ``shared(maximumBytes:usesHeuristicFreshness:)``.
    public let isShared: Bool
    /// At most this many variants (``CachedResponse/matches(_:)``) are kept per URL.
    private static let variantLimit = 8

    /// A cache in memory.
    /// - Parameters:
    ///   - maximumBytes: The most bytes of bodies and headers kept; 10 MiB by default.
    ///   - usesHeuristicFreshness: Whether a response without explicit freshness is fresh for a
    ///     tenth of the time since its `Last-Modified` (at most a day); off by default.
    public convenience init(maximumBytes: Int64 = 10 << 20, usesHeuristicFreshness: Bool = false) {
        self.init(
            storage: MemoryCacheStorage(maximumBytes: maximumBytes),
            usesHeuristicFreshness: usesHeuristicFreshness)
    }

    /// A cache in `folder` (created if needed, readable by its owner only), kept across launches.
    /// - Parameters:
    ///   - folder: A folder for the cache alone.
    ///   - maximumBytes: The most bytes of files kept; 100 MiB by default.
    ///   - usesHeuristicFreshness: See ``init(maximumBytes:usesHeuristicFreshness:)``.
    /// - Throws: When the folder cannot be created or read.
    public convenience init(
        folder: URL, maximumBytes: Int64 = 100 << 20, usesHeuristicFreshness: Bool = false
    )
        throws
    {
        self.init(
            storage: try DiskCacheStorage(folder: folder, maximumBytes: maximumBytes),
            usesHeuristicFreshness: usesHeuristicFreshness)
    }

    /// A cache on `storage` with a clock of the caller's (tests move time without waiting).
    init(
        storage: any CacheStorage, usesHeuristicFreshness: Bool, isShared: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.usesHeuristicFreshness = usesHeuristicFreshness
        self.isShared = isShared
        self.now = now
    }

    /// A cache in memory for a process that serves many users (a server calling an API on their
    /// behalf), by the rules of a shared cache (RFC 9111 §3.5, §5.2.2): a response marked
    /// `private` is never stored, one to a request with `Authorization` only when it says
    /// `public`, `s-maxage` or `must-revalidate`, and `s-maxage` comes before `max-age`. As in
    /// every ``HTTPCache``, an answer stored for some credentials is served to the same alone.
    /// - Parameters:
    ///   - maximumBytes: The most bytes of bodies and headers kept; 10 MiB by default.
    ///   - usesHeuristicFreshness: See ``init(maximumBytes:usesHeuristicFreshness:)``.
    /// - Returns: The cache.
    public static func shared(maximumBytes: Int64 = 10 << 20, usesHeuristicFreshness: Bool = false)
        -> HTTPCache
    {
        HTTPCache(
            storage: MemoryCacheStorage(maximumBytes: maximumBytes),
            usesHeuristicFreshness: usesHeuristicFreshness, isShared: true)
    }

    /// A shared cache (see ``shared(maximumBytes:usesHeuristicFreshness:)``) in `folder`.
    /// - Parameters:
    ///   - folder: A folder for the cache alone.
    ///   - maximumBytes: The most bytes of files kept; 100 MiB by default.
    ///   - usesHeuristicFreshness: See ``init(maximumBytes:usesHeuristicFreshness:)``.
    /// - Returns: The cache.
    /// - Throws: When the folder cannot be created or read.
    public static func shared(
        folder: URL, maximumBytes: Int64 = 100 << 20, usesHeuristicFreshness: Bool = false
    ) throws -> HTTPCache {
        HTTPCache(
            storage: try DiskCacheStorage(folder: folder, maximumBytes: maximumBytes),
            usesHeuristicFreshness: usesHeuristicFreshness, isShared: true)
    }

    /// A memory cache whose clock is `now` (tests).
    package convenience init(maximumBytes: Int64, isShared: Bool = false, now: @escaping @Sendable () -> Date)
    {
        self.init(
            storage: MemoryCacheStorage(maximumBytes: maximumBytes), usesHeuristicFreshness: false,
            isShared: isShared, now: now)
    }

    /// Bytes the cache holds now.
    public var totalBytes: Int64 { storage.totalBytes }

    /// Forgets every stored response.
    public func removeAll() { storage.removeAll() }

    // MARK: Sending through the cache

    /// Answers `request` from the store, or sends it through `transport` (made conditional when
    /// a stored response needs validating), storing or invalidating by what comes back.
    func send(_ request: TransportRequest, through transport: any HTTPTransport) -> Promise<TransportResponse>
    {
        // A provider's interceptors may change the request (its credentials, its URL): the cache
        // sits below them, so that it decides on what they made.
        if let intercepting = transport as? InterceptingTransport {
            return intercepting.wrapping(base: CachingTransport(cache: self, base: intercepting.base)).send(
                request)
        }
        return sendBelowInterceptors(request, through: transport)
    }

    /// ``send(_:through:)`` once the request is final but for the transport's own additions.
    fileprivate func sendBelowInterceptors(_ request: TransportRequest, through transport: any HTTPTransport)
        -> Promise<TransportResponse>
    {
        let urlRequest = request.urlRequest
        guard let url = urlRequest.url else { return transport.send(request) }
        let method = urlRequest.httpMethod ?? "GET"
        guard ["GET", "HEAD"].contains(method) else {
            guard !HTTPMethod.safeNames.contains(method) else { return transport.send(request) }
            return after(transport.send(request)) { [self] response in
                invalidate(after: response, to: url)
                return response
            }
        }
        let headers = HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:])
        let directives = CacheControl(headers)
        let conditional = [
            "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
        ]
        guard request.downloadSink == nil, request.bodyStream == nil, request.bodyFileURL == nil,
            !directives.noStore,
            !conditional.contains(where: headers.contains)
        else { return transport.send(request) }

        // The cache decides on the request as sent (RFC 9111 §4.1): with the cookies its
        // transport's jar adds at the wire, which `Vary: Cookie` and the credentials rule see.
        let asSent = CacheCredentials.asSent(urlRequest, jar: (transport as? any CookieJarTransport)?.cookies)
        let keying = CacheCredentials(key: storage.credentialKey, declared: request.sensitiveHeaders)
        let credentials = keying.digest(of: asSent, declared: request.sensitiveHeaders)
        let key = storageKey(for: url)
        let stored = storage.entries(for: key).first {
            $0.matches(asSent, credentials: credentials, keying: keying)
        }
        if let stored, isFresh(stored, for: directives) {
            var answer = stored.response(to: urlRequest, age: stored.age(at: now()), status: .hit)
            if method == "HEAD" { answer.data = Data() }
            return Promise(value: answer)
        }
        if directives.onlyIfCached {
            return Promise(value: Self.gatewayTimeout(for: urlRequest))
        }
        // A HEAD is answered from the store only when fresh, and never stored.
        guard method == "GET" else { return transport.send(request) }
        // The jar's cookies go out as the request's own: what the cache decided on is what is sent,
        // even if the jar changes before the transport reads it (another user signing in).
        var sent = request
        sent.urlRequest = asSent
        var validating = false
        if let stored {
            let storedHeaders = stored.headers
            if let tag = storedHeaders["ETag"] {
                sent.urlRequest.setValue(tag, forHTTPHeaderField: "If-None-Match")
                validating = true
            }
            if let modified = storedHeaders["Last-Modified"] {
                sent.urlRequest.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
                validating = true
            }
        }
        let requestTime = now()
        return after(transport.send(sent)) { [self, validating] response in
            let responseTime = now()
            if response.statusCode == 304, let stored, validating {
                let refreshed = stored.refreshed(
                    by: response.headers, requestTime: requestTime, responseTime: responseTime)
                // A 304 that now says no-store (or private, to a shared cache) ends the entry.
                let directives = CacheControl(refreshed.headers)
                if directives.noStore || (isShared && directives.has("private")) {
                    keep(nil, replacing: stored, for: key)
                } else {
                    keep(refreshed, for: key)
                }
                var answer = refreshed.response(
                    to: response.request, age: refreshed.age(at: responseTime), status: .revalidated)
                answer.metrics = response.metrics
                return answer
            }
            if let reason = refusal(of: response, for: request) {
                var response = response
                response.cacheNote = "not stored: \(reason)"
                return response
            }
            keep(
                CachedResponse(
                    key: key, request: asSent, response: response, requestTime: requestTime,
                    responseTime: responseTime, credentials: credentials, keying: keying),
                for: key)
            return response
        }
    }

    /// Whether `stored` may be served without asking the server, for a request with `directives`.
    private func isFresh(_ stored: CachedResponse, for directives: CacheControl) -> Bool {
        guard !directives.noCache, !CacheControl(stored.headers).noCache else { return false }
        let age = stored.age(at: now())
        let lifetime = stored.freshnessLifetime(heuristic: usesHeuristicFreshness, shared: isShared)
        if let maxAge = directives.seconds("max-age"), age > maxAge { return false }
        let minimumFresh = directives.seconds("min-fresh") ?? 0
        if lifetime - age > minimumFresh { return true }
        // `max-stale` (RFC 9111 §5.2.1.2): the caller takes a stale answer, within its bound if it
        // gave one, unless the response said it must never be served stale (§5.2.2.2).
        let response = CacheControl(stored.headers)
        guard directives.has("max-stale"), !response.has("must-revalidate"), !response.has("proxy-revalidate")
        else { return false }
        guard directives.hasArgument("max-stale") else { return true }
        guard let bound = directives.seconds("max-stale") else { return false }
        return age - lifetime <= bound
    }

    /// Why `response` to `request` may not be kept (RFC 9111 §3, with the rules above), or nil
    /// when it may.
    private func refusal(of response: TransportResponse, for request: TransportRequest) -> String? {
        let headers = response.headers
        let directives = CacheControl(headers)
        // An answer reached through a redirect is the target's, not this URL's (whose own answer, a
        // temporary redirect perhaps, said nothing about how long it holds).
        guard response.request.url?.absoluteString == request.urlRequest.url?.absoluteString else {
            return "it was reached through a redirect"
        }
        if response.bodyWentToSink { return "its body went to a file or a stream" }
        if directives.noStore { return "the response says no-store" }
        if [206, 304].contains(response.statusCode) || !(200..<600).contains(response.statusCode) {
            return "a \(response.statusCode) is not stored"
        }
        if CachedResponse.varyNames(headers).contains("*") { return "the response varies on *" }
        if headers.contains("Set-Cookie") { return "the response sets a cookie" }
        // A response to a request with credentials is kept too, but served to a request with the
        // same credentials alone (see `CachedResponse.matches`). A shared cache keeps to RFC 9111
        // §3.5 besides: nothing `private`, and an authorized request's answer only when the
        // response allows a shared cache to keep it.
        if isShared {
            if directives.has("private") { return "the response is private and this cache is shared" }
            // A URL's user and password go out as `Authorization: Basic`.
            let authorized =
                request.urlRequest.value(forHTTPHeaderField: "Authorization") != nil
                || request.urlRequest.url?.user != nil
            if authorized && !directives.isPublic && !directives.has("s-maxage")
                && !directives.has("must-revalidate")
            {
                return "the request was authorized and the response does not allow a shared cache"
            }
        }
        let explicit =
            directives.seconds("max-age") != nil || headers.contains("Expires")
            || (isShared && directives.seconds("s-maxage") != nil)
        guard explicit || CachedResponse.heuristicallyCacheable.contains(response.statusCode) else {
            return "a \(response.statusCode) needs max-age or Expires to be stored"
        }
        // Worth keeping only if it can be served fresh or validated.
        guard
            explicit || headers.contains("ETag") || headers.contains("Last-Modified")
                || (usesHeuristicFreshness && directives.isPublic)
        else {
            return "the response has no freshness (max-age, Expires) and no validator (ETag, Last-Modified)"
        }
        return nil
    }

    /// Stores `entry` in place of the variant it replaces, newest first.
    private func keep(_ entry: CachedResponse, for key: String) {
        keep(entry, replacing: entry, for: key)
    }

    /// Removes the variant `old` stands for (the same varied values and credentials) and stores
    /// `entry`, if any, first.
    private func keep(_ entry: CachedResponse?, replacing old: CachedResponse, for key: String) {
        var variants = storage.entries(for: key).filter {
            $0.head.varied != old.head.varied || $0.head.credentials != old.head.credentials
        }
        if let entry { variants.insert(entry, at: 0) }
        storage.store(Array(variants.prefix(Self.variantLimit)), for: key)
    }

    /// After an unsafe method succeeded (RFC 9111 §4.4): what is stored for its URL, and for its
    /// `Location` and `Content-Location` on the same origin, is stale for good.
    private func invalidate(after response: TransportResponse, to url: URL) {
        guard (200..<400).contains(response.statusCode) else { return }
        var targets = [url]
        for name in ["Location", "Content-Location"] {
            if let value = response.headers[name],
                let target = URL(string: value, relativeTo: url)?.absoluteURL,
                target.scheme == url.scheme, target.host == url.host, target.port == url.port
            {
                targets.append(target)
            }
        }
        for target in targets { storage.store([], for: storageKey(for: target)) }
    }

    /// The key an entry is stored under: the digest of ``key(for:)``, so that a token in a query
    /// (`?access_token=`) reaches no file in clear.
    private func storageKey(for url: URL) -> String {
        CacheCredentials(key: storage.credentialKey).digest(Self.key(for: url))
    }

    /// The store's key: the URL without its fragment or its user and password (`GET` and `HEAD`
    /// share it).
    static func key(for url: URL) -> String {
        var text = CacheCredentials.withoutUserInfo(url).absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        return "GET " + text
    }

    /// The answer to `only-if-cached` when nothing fresh is stored (RFC 9111 §5.2.1.7).
    private static func gatewayTimeout(for request: URLRequest) -> TransportResponse {
        var response = TransportResponse(
            url: request.url ?? URL(fileURLWithPath: "/"), statusCode: 504, httpVersion: "HTTP/1.1",
            headers: ["Content-Length": "0"], data: Data(), request: request)
        response.cacheStatus = .miss
        return response
    }

    /// `upstream`'s response through `transform`, where it settles; cancelling the result
    /// cancels `upstream`.
    private func after(
        _ upstream: Promise<TransportResponse>,
        _ transform: @escaping @Sendable (TransportResponse) -> TransportResponse
    ) -> Promise<TransportResponse> {
        let (promise, resolver) = Promise<TransportResponse>.pending()
        resolver.onCancel { upstream.cancel() }
        upstream.whenSettled { result in
            switch result {
            case .success(let response): _ = resolver.fulfill(transform(response))
            case .failure(let error) where error is CancellationError: _ = resolver.cancel()
            case .failure(let error): _ = resolver.reject(error)
            }
        }
        return promise
    }
}

/// Where a response came from when an ``HTTPCache`` answered it.
public enum CacheStatus: Sendable, Equatable {
    /// Served from the store, fresh, without a request.
    case hit
    /// Served from the store after the server answered `304 Not Modified` to a validation.
    case revalidated
    /// Not served: the request said `only-if-cached` and nothing fresh was stored (a `504`).
    case miss
}

/// The cache as a transport, for a provider's interceptors to call below them.
private struct CachingTransport: HTTPTransport, CookieJarTransport {
    let cache: HTTPCache
    let base: any HTTPTransport

    var cookies: CookieJar? { (base as? any CookieJarTransport)?.cookies }

    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        cache.sendBelowInterceptors(request, through: base)
    }
}
