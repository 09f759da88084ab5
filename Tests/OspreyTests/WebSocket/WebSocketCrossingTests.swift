#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// Where WebSockets meet the rest: TLS, cookies, credentials and redirects, proxies, the HTTP
    /// cache, Unix domain sockets (the invariants table in Tests/INVARIANTS.md).
    @Suite(
        "WebSocket: TLS, cookies, credentials, redirects, proxies, the cache and Unix sockets",
        .enabled(
            if: WebSocketServer.python != nil, "OSPREY_PYTHON is not set: run the tests with Scripts/test.sh")
    )
    struct WebSocketCrossingTests {
        /// The request headers the server saw for a socket at `endpoint` (its `/headers` path).
        private static func headersSeen(
            _ api: SocketAPI, endpoint: String = "/headers"
        ) async throws -> [String: String] {
            let socket = try await api.webSocket(route: .get(Endpoint(verbatim: api.baseURL + endpoint)))
                .value
            defer { socket.cancel() }
            var iterator = socket.messages.makeAsyncIterator()
            let next = try await iterator.next()
            return try socket.decode([String: String].self, from: try #require(next))
        }

        @Test("wss: a socket over TLS, trusting the test's certificate authority")
        func overTLS() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let server = try await WebSocketServer.start(
                certificate: fixture.folder.appendingPathComponent("server.pem"),
                key: fixture.folder.appendingPathComponent("server.key"))
            defer { server.stop() }
            let transport = try #require(CurlTransport(trustedCertificates: fixture.authority))
            let api = SocketAPI(baseURL: "wss://localhost:\(server.port)", transport: transport)
            let socket = try await api.webSocket(route: api.get(endpoint: "/echo")).value
            try await socket.send(text: "over TLS").value
            var iterator = socket.messages.makeAsyncIterator()
            let echoed = try await iterator.next()
            #expect(echoed == .text("over TLS"))
            _ = try await socket.close().value
            // Without the authority the handshake fails like any request over TLS.
            let untrusted = SocketAPI(
                baseURL: "wss://localhost:\(server.port)", transport: try #require(CurlTransport()))
            let result = await untrusted.webSocket(route: untrusted.get(endpoint: "/echo")).result
            guard case .failure(APIError.transport(let underlying, _)) = result else {
                Issue.record("\(result)")
                return
            }
            #expect((underlying as? URLError)?.code == .secureConnectionFailed)
        }

        @Test("a cookie set on a 101 is kept by the jar and sent with the next handshake")
        func cookies() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = SocketAPI(baseURL: server.baseURL, transport: try #require(CurlTransport()))
            let first = try await api.webSocket(route: api.get(endpoint: "/cookie")).value
            first.cancel()
            let headers = try await Self.headersSeen(api)
            #expect(headers["cookie"] == "session=abc")
        }

        @Test(
            "an adapter's Authorization reaches the socket's origin (ws is http's), never another after a redirect"
        )
        func credentials() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = SocketAPI(baseURL: server.baseURL, transport: try #require(CurlTransport()))
            api.configuration.adapters = [
                BearerAuthenticator(token: "secret") { _ in Promise(value: "renewed") }
            ]
            #expect(try await Self.headersSeen(api)["authorization"] == "Bearer secret")
            // Same port, another host name: another origin, which the redirect must not tell the token.
            let elsewhere = "ws://localhost:\(server.port)/headers"
            let location = try #require(
                elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let redirected = try await Self.headersSeen(api, endpoint: "/redirect-to?location=\(location)")
            #expect(redirected["authorization"] == nil)
            #expect(redirected["host"] == "localhost:\(server.port)")
        }

        @Test(
            "through a proxy the socket is tunnelled (CONNECT); its credentials go to the proxy, never to the origin"
        )
        func throughProxy() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let proxy = try await ConnectProxy.start()
            defer { proxy.stop() }
            let transport = try #require(
                CurlTransport(proxy: HTTPProxy(url: proxy.url, username: "svc", password: "p@ss")))
            let api = SocketAPI(baseURL: server.baseURL, transport: transport)
            api.configuration.headers["Authorization"] = "Bearer origin-token"
            let headers = try await Self.headersSeen(api)
            #expect(headers["authorization"] == "Bearer origin-token")
            #expect(headers["proxy-authorization"] == nil)
            #expect(headers["host"] == "127.0.0.1:\(server.port)")
            let seen = try await proxy.firstSeen()
            #expect(seen.method == "CONNECT")
            #expect(seen.target == "127.0.0.1:\(server.port)")
            #expect(seen.authorization == "Basic " + Data("svc:p@ss".utf8).base64EncodedString())
        }

        @Test("with an HTTP cache, each handshake still reaches the server and nothing is stored")
        func cache() async throws {
            let server = try await WebSocketServer.start()
            defer { server.stop() }
            let api = SocketAPI(baseURL: server.baseURL, transport: try #require(CurlTransport()))
            let cache = HTTPCache()
            api.configuration.cache = cache
            // Each socket gets its own first message from the server: a real handshake each time.
            for _ in 0..<2 { #expect(try await Self.headersSeen(api)["upgrade"] == "websocket") }
            #expect(cache.totalBytes == 0)
        }

        @Test("a socket through a Unix domain socket; a redirect from the network into one is refused")
        func unixSockets() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ws-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("socket").path
            let local = try await WebSocketServer.start(unixSocket: path)
            defer { local.stop() }
            let network = try await WebSocketServer.start()
            defer { network.stop() }
            let transport = try #require(CurlTransport(unixSockets: ["daemon": path]))
            let api = SocketAPI(baseURL: "ws://daemon", transport: transport)
            let socket = try await api.webSocket(route: api.get(endpoint: "/echo")).value
            try await socket.send(text: "through the socket").value
            var iterator = socket.messages.makeAsyncIterator()
            let echoed = try await iterator.next()
            #expect(echoed == .text("through the socket"))
            socket.cancel()
            // A server on the network sends the handshake to the daemon's socket: refused.
            let remote = SocketAPI(baseURL: network.baseURL, transport: transport)
            let result = await remote.webSocket(
                route: .get(
                    Endpoint(verbatim: network.baseURL + "/redirect-to?location=ws%3A%2F%2Fdaemon%2Fecho"))
            ).result
            guard case .failure(APIError.redirectRefused(let reason, _)) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(reason.contains("Unix domain socket"))
        }
    }
#endif
