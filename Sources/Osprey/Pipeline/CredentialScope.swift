import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps the credentials that request adapters add (a bearer token, an API key) on the API's
/// own origin: a request to another origin (an absolute route, a pagination link elsewhere) is
/// sent without them. Headers the request itself carried are the caller's choice and stay.
///
/// The API's origin is its `baseURL`'s, so the scope applies to clients that conform to
/// ``BaseAPI``; a client without a base URL has no origin to keep credentials on.
enum CredentialScope {
    /// `adapted` without the sensitive headers adapters added or changed, unless it goes to
    /// `origin`.
    static func limit(
        _ adapted: URLRequest, built: URLRequest, to origin: URL?, declared: Set<String>
    ) -> URLRequest {
        guard let origin, let url = adapted.url, !url.hasSameOrigin(as: origin) else { return adapted }
        var scoped = adapted
        for (name, value) in adapted.allHTTPHeaderFields ?? [:]
        where HTTPHeaders.isSensitive(name, declared: declared)
            && built.value(forHTTPHeaderField: name) != value
        {
            scoped.setValue(nil, forHTTPHeaderField: name)
        }
        return scoped
    }
}
