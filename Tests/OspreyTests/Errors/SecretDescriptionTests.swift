import Foundation
import Testing

@testable import Osprey

/// Every type that holds a secret prints without it, whichever way it is printed: `print` and
/// interpolation (`description`), `String(reflecting:)` (`debugDescription`) and `dump` (a
/// mirror, which without a custom one shows every stored property).
@Suite("Secrets: no type that holds one prints it")
struct SecretDescriptionTests {
    private static let basic = AuthorizationHeader.basic(username: "svc", password: "basic-secret")

    /// (what, the value, the texts none of its printed forms may contain, a text they show)
    static let holders: [(String, any Sendable, [String], String)] = {
        var proxyWithURLCredentials = HTTPProxy(url: URL(string: "http://proxy.internal:3128")!)
        proxyWithURLCredentials.url = URL(string: "http://svc:url-secret@proxy.internal:3128")!
        let jar = CookieJar()
        jar.store(setCookieLines: ["session=cookie-secret"], from: URL(string: "http://example.com/")!)
        var holders: [(String, any Sendable, [String], String)] = [
            ("TLSOptions", TLSOptions(clientKeyPassword: "tls-secret"), ["tls-secret"], "clientKeyPassword"),
            (
                "HTTPProxy",
                HTTPProxy(
                    url: URL(string: "http://proxy.internal:3128")!, username: "svc", password: "proxy-secret"
                ),
                ["proxy-secret"], "proxy.internal"
            ),
            (
                "HTTPProxy from a URL", HTTPProxy(string: "http://svc:url-secret@proxy.internal:3128")!,
                ["url-secret"], "proxy.internal"
            ),
            (
                "HTTPProxy whose URL was given credentials", proxyWithURLCredentials, ["url-secret"],
                "proxy.internal"
            ),
            (
                "ProxySettings",
                ProxySettings(environment: ["http_proxy": "http://svc:env-secret@proxy.internal:3128"]),
                ["env-secret"], "proxy.internal"
            ),
            (
                "BearerAuthenticator",
                BearerAuthenticator(token: "bearer-secret") { _ in Promise(value: "next") },
                ["bearer-secret"], "token"
            ),
            (
                "AuthorizationHeader.basic", basic,
                ["basic-secret", Data("svc:basic-secret".utf8).base64EncodedString()], "Basic"
            ),
            (
                "AuthorizationHeader.bearer", AuthorizationHeader.bearer("bearer-secret"), ["bearer-secret"],
                "Bearer"
            ),
            ("CookieJar", jar, ["cookie-secret"], "CookieJar"),
            (
                "HTTPHeaders",
                HTTPHeaders(["Authorization": "Bearer header-secret", "Accept": "text/plain"]),
                ["header-secret"], "text/plain"
            ),
            (
                "HTTPHeaders.Authorization.basic",
                HTTPHeaders.Authorization.basic(username: "svc", password: "enum-secret"),
                ["enum-secret", Data("svc:enum-secret".utf8).base64EncodedString()], "svc"
            ),
            (
                "HTTPHeaders.Authorization.bearer", HTTPHeaders.Authorization.bearer("enum-token"),
                ["enum-token"], "bearer"
            ),
            ("HTTPCache", HTTPCache(), ["credentialKey", "storage"], "private"),
        ]
        #if canImport(CCurl)
            if let transport = CurlTransport(
                cookies: jar,
                proxy: HTTPProxy(
                    url: URL(string: "http://proxy.internal:3128")!, username: "svc", password: "proxy-secret"
                ),
                tls: TLSOptions(clientKeyPassword: "tls-secret"))
            {
                holders.append(
                    ("CurlTransport", transport, ["proxy-secret", "tls-secret", "cookie-secret"], "Curl"))
            }
        #endif
        return holders
    }()

    @Test("description, debugDescription, interpolation and dump show no secret", arguments: holders)
    func redacted(what: String, value: any Sendable, secrets: [String], shown: String) {
        var dumped = ""
        dump(value, to: &dumped)
        let forms = [
            "description": String(describing: value), "reflecting": String(reflecting: value),
            "interpolated": "\(value)", "dump": dumped,
        ]
        for (form, text) in forms {
            for secret in secrets {
                #expect(!text.contains(secret), "\(what), \(form): \(text)")
            }
        }
        #expect(forms.values.contains { $0.contains(shown) }, "\(what): \(forms)")
    }

    @Test("what is redacted still says whether there is a secret, and what is not secret shows")
    func redactedButUseful() {
        let tls = TLSOptions(clientKeyPassword: "tls-secret", pinnedPublicKeys: ["pin"])
        #expect(String(describing: tls).contains("clientKeyPassword: <redacted>"))
        #expect(String(describing: tls).contains("[\"pin\"]"))
        #expect(String(describing: TLSOptions()).contains("clientKeyPassword: nil"))
        let proxy = HTTPProxy(url: URL(string: "http://proxy.internal:3128")!, username: "svc", password: "p")
        #expect(String(reflecting: proxy).contains("username: svc, password: <redacted>"))
        #expect("\(Self.basic)" == "Basic <redacted>")
        #expect("\(AuthorizationHeader(value: "secret-without-scheme"))" == "<redacted>")
    }
}
