#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// Proxies from the environment, as libcurl (and so URLSession on Linux) reads them. The
    /// environment is passed to the transport, so the tests never change the process's own.
    @Suite("Transport: CurlTransport uses the environment's proxies")
    struct CurlProxyTests {
        @Test(
            "the variables are read as libcurl reads them",
            arguments: [
                (["http_proxy": "http://p:1"], ProxySettings(http: HTTPProxy(string: "http://p:1"))),
                // Upper-case HTTP_PROXY is ignored: a CGI server sets it from a request's Proxy header.
                (["HTTP_PROXY": "http://p:1"], ProxySettings()),
                (["HTTPS_PROXY": "http://s:2"], ProxySettings(https: HTTPProxy(string: "http://s:2"))),
                (
                    ["https_proxy": "http://s:2", "HTTPS_PROXY": "http://other:3"],
                    ProxySettings(https: HTTPProxy(string: "http://s:2"))
                ),
                (
                    ["all_proxy": "http://a:4"],
                    ProxySettings(
                        http: HTTPProxy(string: "http://a:4"), https: HTTPProxy(string: "http://a:4"))
                ),
                (
                    ["ALL_PROXY": "http://a:4", "http_proxy": "http://p:1"],
                    ProxySettings(
                        http: HTTPProxy(string: "http://p:1"), https: HTTPProxy(string: "http://a:4"))
                ),
                (["NO_PROXY": "example.com", "http_proxy": ""], ProxySettings(noProxy: "example.com")),
            ])
        func reading(environment: [String: String], expected: ProxySettings) {
            #expect(ProxySettings(environment: environment) == expected)
        }

        @Test("credentials in a variable are taken out of the address; host:port alone means http")
        func credentialsFromTheEnvironment() throws {
            let settings = ProxySettings(environment: [
                "http_proxy": "http://svc:p%40ss%3Aword@127.0.0.1:3128", "https_proxy": "proxy.internal:8080",
            ])
            let http = try #require(settings.http)
            #expect(http.url.absoluteString == "http://127.0.0.1:3128")
            #expect(http.username == "svc")
            #expect(http.password == "p@ss:word")
            #expect(!http.description.contains("p@ss"))
            #expect(http.description == "http://127.0.0.1:3128 (with credentials)")
            #expect(settings.https?.url.absoluteString == "http://proxy.internal:8080")
            #expect(settings.https?.username == nil)
            #expect(HTTPProxy(string: "") == nil)
            #expect(HTTPProxy(string: "http://") == nil)
        }

        @Test("a proxy given in code: credentials kept apart, the bypass list as no_proxy")
        func proxyInCode() throws {
            let url = try #require(URL(string: "http://ada:lovelace@proxy.internal:3128"))
            let proxy = HTTPProxy(url: url, bypass: ["localhost", ".internal"])
            #expect(proxy.url.absoluteString == "http://proxy.internal:3128")
            #expect(proxy.username == "ada")
            #expect(proxy.password == "lovelace")
            let settings = ProxySettings(proxy)
            #expect(settings.http == proxy)
            #expect(settings.https == proxy)
            #expect(settings.noProxy == "localhost,.internal")
            // Credentials given apart win over those in the address.
            let explicit = HTTPProxy(url: url, username: "grace", password: "hopper")
            #expect(explicit.username == "grace")
            #expect(explicit.password == "hopper")
            #expect(explicit.url.absoluteString == "http://proxy.internal:3128")
        }

        @Test("credentials go to the proxy only, as Proxy-Authorization; a bypassed origin never sees them")
        func credentialsReachTheProxyOnly() async throws {
            let (proxy, origin) = try Self.servers()
            defer {
                proxy.stop()
                origin.stop()
            }
            let fromEnvironment = try #require(
                CurlTransport(environment: ["http_proxy": "http://svc:p%40ss@127.0.0.1:\(proxy.port)"]))
            let fromCode = try #require(
                CurlTransport(proxy: HTTPProxy(url: proxy.baseURL, username: "svc", password: "p@ss")))
            for transport in [fromEnvironment, fromCode] {
                let api = TestAPI(origin, transport: transport)
                let text: String = try await api.request(route: api.get(endpoint: "/hello")).value
                #expect(text == "from the proxy")
            }
            let expected = "Basic " + Data("svc:p@ss".utf8).base64EncodedString()
            #expect(
                proxy.requests.map { $0.value(forHeader: "Proxy-Authorization") } == [expected, expected])
            // The same credentials, with the origin on the bypass list: straight to the origin, without them.
            let bypassing = try #require(
                CurlTransport(
                    proxy: HTTPProxy(
                        url: proxy.baseURL, username: "svc", password: "p@ss", bypass: ["127.0.0.1"])))
            let api = TestAPI(origin, transport: bypassing)
            let text: String = try await api.request(route: api.get(endpoint: "/hello")).value
            #expect(text == "from the origin")
            #expect(origin.requests.allSatisfy { $0.value(forHeader: "Proxy-Authorization") == nil })
            #expect(proxy.requests.count == 2)
        }

        @Test(
            "a redirect's next hop picks its own route: a bypassed host is reached directly, without the proxy's credentials"
        )
        func redirectsChooseTheirProxy() async throws {
            let (proxy, origin) = try Self.servers()
            defer {
                proxy.stop()
                origin.stop()
            }
            proxy.route("/go") { _ in .redirect(302, to: "http://localhost:\(origin.port)/hello") }
            let transport = try #require(
                CurlTransport(
                    proxy: HTTPProxy(
                        url: proxy.baseURL, username: "svc", password: "p@ss", bypass: ["localhost"])))
            let api = TestAPI(origin, transport: transport)
            let text: String = try await api.request(route: api.get(endpoint: "/go")).value
            #expect(text == "from the origin")
            #expect(proxy.requests.map(\.path) == ["/go"])
            #expect(proxy.requests.first?.value(forHeader: "Proxy-Authorization") != nil)
            #expect(origin.requests.map(\.target) == ["/hello"])
            #expect(origin.requests.allSatisfy { $0.value(forHeader: "Proxy-Authorization") == nil })
        }

        @Test("an unreachable proxy fails without its credentials in the error")
        func credentialsNeverInErrors() async throws {
            let (proxy, origin) = try Self.servers()
            let port = proxy.port
            proxy.stop()
            defer { origin.stop() }
            let transport = try #require(
                CurlTransport(environment: ["http_proxy": "http://svc:s3cret-value@127.0.0.1:\(port)"]))
            let api = TestAPI(origin, transport: transport)
            let error = try #require(
                await (api.request(route: api.get(endpoint: "/hello")) as Promise<String>).apiError)
            let told = "\(error) \(String(reflecting: error)) \(error.localizedDescription)"
            #expect(!told.contains("s3cret-value"), "\(told)")
            #expect(!told.contains("svc:"), "\(told)")
        }

        /// A proxy and an origin server, each answering `/hello` with its own name.
        private static func servers() throws -> (proxy: LoopbackServer, origin: LoopbackServer) {
            let proxy = try LoopbackServer()
            let origin = try LoopbackServer()
            proxy.route("/hello") { _ in .text("from the proxy") }
            origin.route("/hello") { _ in .text("from the origin") }
            return (proxy, origin)
        }

        @Test("http_proxy carries plain http requests: the proxy gets the absolute URL and answers")
        func throughTheProxy() async throws {
            let (proxy, origin) = try Self.servers()
            defer {
                proxy.stop()
                origin.stop()
            }
            let transport = try #require(
                CurlTransport(environment: ["http_proxy": proxy.baseURL.absoluteString]))
            let api = TestAPI(origin, transport: transport)
            let text: String = try await api.request(route: api.get(endpoint: "/hello?x=1")).value
            #expect(text == "from the proxy")
            #expect(origin.requests.isEmpty)
            let sent = try #require(proxy.requests.first)
            #expect(sent.target == origin.url("/hello?x=1").absoluteString)
            #expect(sent.value(forHeader: "Host") == "127.0.0.1:\(origin.port)")
        }

        @Test("no_proxy names the hosts reached directly; with no variable set nothing is proxied")
        func direct() async throws {
            let (proxy, origin) = try Self.servers()
            defer {
                proxy.stop()
                origin.stop()
            }
            let proxyURL = proxy.baseURL.absoluteString
            for environment in [
                ["http_proxy": proxyURL, "no_proxy": "127.0.0.1"],
                ["http_proxy": proxyURL, "NO_PROXY": "localhost,127.0.0.1"],
                ["https_proxy": proxyURL],
                [:],
            ] {
                let transport = try #require(CurlTransport(environment: environment))
                let api = TestAPI(origin, transport: transport)
                let text: String = try await api.request(route: api.get(endpoint: "/hello")).value
                #expect(text == "from the origin", "\(environment)")
            }
            #expect(proxy.requests.isEmpty)
        }
    }
#endif
