import Foundation

/// The proxies a ``CurlTransport`` uses, read once from the environment the way libcurl (and so
/// `URLSession` on Linux) reads it: `http_proxy` (lower case only: a CGI server sets
/// `HTTP_PROXY` from a request's `Proxy` header), `https_proxy` or `HTTPS_PROXY`, then
/// `all_proxy` or `ALL_PROXY`; `no_proxy` or `NO_PROXY` lists the hosts reached directly
/// (libcurl matches them: domains with their subdomains, addresses, `*` for all).
struct ProxySettings: Sendable, Equatable {
    var http: String?
    var https: String?
    var noProxy: String?

    init(http: String? = nil, https: String? = nil, noProxy: String? = nil) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    init(environment: [String: String]) {
        func first(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        let all = first("all_proxy", "ALL_PROXY")
        self.init(
            http: first("http_proxy") ?? all, https: first("https_proxy", "HTTPS_PROXY") ?? all,
            noProxy: first("no_proxy", "NO_PROXY"))
    }

    /// The proxy for `url`, or nil to connect directly (``noProxy`` aside, which libcurl applies).
    func proxy(for url: URL) -> String? {
        switch url.scheme?.lowercased() {
        case "http": http
        case "https": https
        default: nil
        }
    }
}
