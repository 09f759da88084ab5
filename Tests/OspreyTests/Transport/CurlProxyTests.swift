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
                (["http_proxy": "http://p:1"], ProxySettings(http: "http://p:1")),
                // Upper-case HTTP_PROXY is ignored: a CGI server sets it from a request's Proxy header.
                (["HTTP_PROXY": "http://p:1"], ProxySettings()),
                (["HTTPS_PROXY": "http://s:2"], ProxySettings(https: "http://s:2")),
                (
                    ["https_proxy": "http://s:2", "HTTPS_PROXY": "http://other:3"],
                    ProxySettings(https: "http://s:2")
                ),
                (["all_proxy": "http://a:4"], ProxySettings(http: "http://a:4", https: "http://a:4")),
                (
                    ["ALL_PROXY": "http://a:4", "http_proxy": "http://p:1"],
                    ProxySettings(http: "http://p:1", https: "http://a:4")
                ),
                (["NO_PROXY": "example.com", "http_proxy": ""], ProxySettings(noProxy: "example.com")),
            ])
        func reading(environment: [String: String], expected: ProxySettings) {
            #expect(ProxySettings(environment: environment) == expected)
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
