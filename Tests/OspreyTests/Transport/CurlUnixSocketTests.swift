#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// Local daemons on a Unix domain socket (the Docker engine's API, say), through
    /// `CurlTransport(unixSockets:)`: the request keeps its http URL, the connection goes to the socket.
    @Suite("Transport: CurlTransport reaches Unix domain sockets")
    struct CurlUnixSocketTests {
        /// A fresh socket path in the temporary folder (short: the limit is about 100 bytes).
        private static func socketPath() -> String {
            "/tmp/osprey-\(UUID().uuidString.prefix(8)).sock"
        }

        /// A server on a socket answering `/v1.43/containers/json` with a list.
        private static func daemon(at path: String) throws -> LoopbackServer {
            let server = try LoopbackServer(unixSocketPath: path)
            server.route("GET", "/v1.43/containers/json") { request in
                .json(#"[{"Id": "abc", "Host": "\#(request.value(forHeader: "Host") ?? "")"}]"#)
            }
            return server
        }

        struct Container: Decodable, Equatable {
            var id: String
            var host: String

            enum CodingKeys: String, CodingKey {
                case id = "Id"
                case host = "Host"
            }
        }

        @Test("a host mapped to a socket is reached through it, over one kept connection")
        func throughTheSocket() async throws {
            let path = Self.socketPath()
            let daemon = try Self.daemon(at: path)
            defer { daemon.stop() }
            let transport = try #require(CurlTransport(unixSockets: ["Docker": path]))
            let api = TestAPI(daemon, host: "docker", transport: transport)
            for _ in 0..<3 {
                let containers: [Container] = try await api.request(
                    route: api.get(endpoint: "/v1.43/containers/json")
                )
                .value
                #expect(containers == [Container(id: "abc", host: "docker")])
            }
            #expect(daemon.requests.count == 3)
            #expect(Set(daemon.requests.map(\.connectionID)).count == 1)
        }

        @Test(
            "other hosts of the same transport still go over the network, and a proxy never takes the socket's"
        )
        func otherHostsAndProxies() async throws {
            let path = Self.socketPath()
            let daemon = try Self.daemon(at: path)
            let network = try LoopbackServer()
            let proxy = try LoopbackServer()
            defer {
                daemon.stop()
                network.stop()
                proxy.stop()
            }
            network.route("/hello") { _ in .text("over tcp") }
            proxy.route("/*any") { _ in .text("from the proxy") }
            let transport = try #require(
                CurlTransport(
                    proxy: HTTPProxy(url: proxy.baseURL, bypass: ["127.0.0.1"]), unixSockets: ["docker": path]
                ))
            let local = TestAPI(daemon, host: "docker", transport: transport)
            let remote = TestAPI(network, transport: transport)
            let containers: [Container] = try await local.request(
                route: local.get(endpoint: "/v1.43/containers/json")
            )
            .value
            #expect(containers.count == 1)
            let text: String = try await remote.request(route: remote.get(endpoint: "/hello")).value
            #expect(text == "over tcp")
            #expect(proxy.requests.isEmpty)
        }

        @Test("a redirect from the network never reaches a socket; one from the socket's own host does")
        func redirectsIntoTheSocket() async throws {
            let path = Self.socketPath()
            let daemon = try Self.daemon(at: path)
            let network = try LoopbackServer()
            defer {
                daemon.stop()
                network.stop()
            }
            daemon.route("POST", "/containers/create") { _ in .text("created", status: 201) }
            daemon.route("GET", "/latest") { _ in .redirect(307, to: "/v1.43/containers/json") }
            network.route("/hook") { _ in .redirect(307, to: "http://docker/containers/create") }
            network.route("/bounce") { _ in .redirect(302, to: "http://DOCKER/v1.43/containers/json") }
            let transport = try #require(CurlTransport(unixSockets: ["docker": path]))
            let remote = TestAPI(network, transport: transport)
            let posted: Promise<String> = remote.request(
                route: remote.post(endpoint: "/hook"), parameters: JSONParameters(["Image": "evil"]))
            let error = try #require(await posted.apiError)
            guard case .redirectRefused(let reason, _) = error else {
                Issue.record("expected redirectRefused, got \(error)")
                return
            }
            #expect(reason.contains("Unix domain socket"), "\(reason)")
            let bounced: Promise<String> = remote.request(route: remote.get(endpoint: "/bounce"))
            guard case .redirectRefused? = await bounced.apiError else {
                Issue.record("expected the GET refused too")
                return
            }
            #expect(daemon.requests.isEmpty)
            let local = TestAPI(daemon, host: "docker", transport: transport)
            let containers: [Container] = try await local.request(route: local.get(endpoint: "/latest")).value
            #expect(containers == [Container(id: "abc", host: "docker")])
        }

        @Test("a socket that is not there fails as a transport error")
        func missingSocket() async throws {
            let transport = try #require(CurlTransport(unixSockets: ["docker": Self.socketPath()]))
            let api = TestAPI(try LoopbackServer(), host: "docker", transport: transport)
            let error = await (api.request(route: api.get(endpoint: "/_ping")) as Promise<String>).apiError
            guard case .transport? = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
        }

        @Test("an http+unix URL is refused before any I/O, with what to do instead")
        func unixSchemeRefused() async throws {
            let api = TestAPI(try LoopbackServer())
            let error = await
                (api.request(route: .get("http+unix://%2Fvar%2Frun%2Fdocker.sock/_ping")) as Promise<String>)
                .apiError
            guard case .invalidRequest(let reason)? = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("CurlTransport(unixSockets:)"), "\(reason)")
        }
    }
#endif
