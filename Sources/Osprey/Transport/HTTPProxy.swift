import Foundation

/// A proxy that a transport sends its requests through, with the credentials it asks for.
///
/// ```swift
/// let proxy = HTTPProxy(url: URL(string: "http://proxy.internal:3128")!, username: "svc", password: secret)
/// let transport = CurlTransport(proxy: proxy)
/// ```
///
/// The credentials go to the proxy only (`Proxy-Authorization`, Basic): on the proxy's own
/// request line for plain http, on the `CONNECT` that opens an https tunnel, never to the origin.
/// They are kept apart from ``url`` and never printed: ``description`` shows the address alone,
/// and `String(reflecting:)` and `dump` show the password redacted.
public struct HTTPProxy: Sendable, Equatable, CustomStringConvertible {
    /// The proxy's address, such as `http://proxy.internal:3128`, without credentials.
    public var url: URL
    /// The user name the proxy asks for.
    public var username: String?
    /// The password the proxy asks for.
    public var password: String?
    /// Hosts reached directly, as `no_proxy` lists them: a name matches itself and its
    /// subdomains, an address itself, `*` everything.
    public var bypass: [String]

    /// A proxy. Credentials written in `url` (`http://user:password@host:port`, percent-encoded)
    /// are taken out of it, unless `username` is given.
    /// - Parameters:
    ///   - url: The proxy's address.
    ///   - username: The user name the proxy asks for.
    ///   - password: The password the proxy asks for.
    ///   - bypass: Hosts reached directly.
    public init(url: URL, username: String? = nil, password: String? = nil, bypass: [String] = []) {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let written = (components?.user, components?.password)
        components?.user = nil
        components?.password = nil
        self.url = components?.url ?? url
        if let username {
            self.username = username
            self.password = password
        } else {
            self.username = written.0?.removingPercentEncoding ?? written.0
            self.password = written.1?.removingPercentEncoding ?? written.1
        }
        self.bypass = bypass
    }

    /// A proxy from the form an environment variable such as `http_proxy` holds: a URL, perhaps
    /// with credentials, or `host:port` alone (plain http). Nil when it names no host.
    /// - Parameter string: The proxy's address.
    public init?(string: String) {
        let text = string.trimmingCharacters(in: .whitespaces)
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: withScheme), let host = url.host, !host.isEmpty else { return nil }
        self.init(url: url)
    }

    /// The address, and whether credentials are set (never the credentials themselves, not even
    /// those written into ``url`` after it was made).
    public var description: String {
        Redaction.urlKeepingPlainQueryValues(url) + (username == nil ? "" : " (with credentials)")
    }
}
