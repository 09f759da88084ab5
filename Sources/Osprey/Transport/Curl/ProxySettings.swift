import Foundation

/// The proxies a ``CurlTransport`` uses: one given in code, or those of the environment, read
/// once the way libcurl (and so `URLSession` on Linux) reads them: `http_proxy` (lower case
/// only: a CGI server sets `HTTP_PROXY` from a request's `Proxy` header), `https_proxy` or
/// `HTTPS_PROXY`, then `all_proxy` or `ALL_PROXY`; `no_proxy` or `NO_PROXY` lists the hosts
/// reached directly (libcurl matches them: domains with their subdomains, addresses, `*` for
/// all). Credentials in a variable (`http://user:password@host:port`) are taken out of the
/// address, so that it can never show them.
struct ProxySettings: Sendable, Equatable {
    var http: HTTPProxy?
    var https: HTTPProxy?
    var noProxy: String?

    init(http: HTTPProxy? = nil, https: HTTPProxy? = nil, noProxy: String? = nil) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// One proxy for every request, with its own list of hosts reached directly.
    init(_ proxy: HTTPProxy) {
        self.init(
            http: proxy, https: proxy,
            noProxy: proxy.bypass.isEmpty ? nil : proxy.bypass.joined(separator: ","))
    }

    init(environment: [String: String]) {
        func first(_ names: String...) -> HTTPProxy? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }.flatMap(HTTPProxy.init(string:))
        }
        let all = first("all_proxy", "ALL_PROXY")
        let noProxy = ["no_proxy", "NO_PROXY"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        self.init(
            http: first("http_proxy") ?? all, https: first("https_proxy", "HTTPS_PROXY") ?? all,
            noProxy: noProxy)
    }

    /// The proxy for `url`, or nil to connect directly (``noProxy`` aside, which libcurl applies).
    func proxy(for url: URL) -> HTTPProxy? {
        // Most processes set none: then the URL's scheme need not be read for each request.
        guard http != nil || https != nil else { return nil }
        return switch url.scheme?.lowercased() {
        case "http": http
        case "https": https
        default: nil
        }
    }
}
