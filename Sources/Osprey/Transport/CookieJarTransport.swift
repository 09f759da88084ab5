import Promises

/// A transport that adds a ``CookieJar``'s cookies to its requests at the wire, and says which
/// jar: an ``HTTPCache`` above it decides on the request as sent, with those cookies (one user's
/// answer must never be served to the next after the jar changed users).
///
/// ``CurlTransport`` and ``URLSessionTransport`` adopt it. A transport of your own that wraps one
/// of them should adopt it too, and forward the wrapped transport's jar:
///
/// ```swift
/// struct LoggingTransport: CookieJarTransport {
///     let base: URLSessionTransport
///     var cookies: CookieJar? { base.cookies }
///     func send(_ request: TransportRequest) -> Promise<TransportResponse> { base.send(request) }
/// }
/// ```
public protocol CookieJarTransport: HTTPTransport {
    /// The jar whose cookies go out with the transport's requests; nil when it keeps none.
    var cookies: CookieJar? { get }
}
