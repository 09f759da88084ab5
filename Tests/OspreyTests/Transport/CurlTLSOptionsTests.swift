#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// Mutual TLS, public-key pinning and the oldest TLS version, through `CurlTransport(tls:)`,
    /// against servers with certificates made at test time.
    @Suite("Transport: CurlTransport's TLS options", .serialized)
    struct CurlTLSOptionsTests {
        struct Echo: Decodable, Equatable {
            var path: String
            var authorization: String?
        }

        /// The outcome of `GET /hello` at `port` through a transport trusting the fixture's CA
        /// with `tls`.
        private func fetch(_ fixture: TLSFixture, port: Int, tls: TLSOptions) async throws -> Result<
            Echo, APIError
        > {
            let transport = try #require(CurlTransport(trustedCertificates: fixture.authority, tls: tls))
            let api = SecureAPI(baseURL: "https://localhost:\(port)", transport: transport)
            switch await (api.request(route: api.get(endpoint: "/hello")) as Promise<Echo>).result {
            case .success(let echo): return .success(echo)
            case .failure(let error as APIError): return .failure(error)
            case .failure(let error): throw error
            }
        }

        final class SecureAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
            let baseURL: String

            init(baseURL: String, transport: any HTTPTransport) {
                self.baseURL = baseURL
                super.init(responseParser: JSONParser(), transport: transport)
            }
        }

        /// The URLError under a transport failure, if it is one.
        private func urlError(_ result: Result<Echo, APIError>) -> URLError? {
            guard case .failure(.transport(let underlying as URLError, _)) = result else { return nil }
            return underlying
        }

        @Test("a pinned key lets the server in; a wrong one fails saying the pin did not match")
        func pinning() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(certificate: "server.pem")
            let pin = try fixture.serverKeyPin()
            let wrong = Data(repeating: 7, count: 32).base64EncodedString()
            let pinned = try await fetch(
                fixture, port: port, tls: TLSOptions(pinnedPublicKeys: [wrong, pin]))
            #expect(try pinned.get() == Echo(path: "/hello", authorization: nil))
            let refused = try await fetch(fixture, port: port, tls: TLSOptions(pinnedPublicKeys: [wrong]))
            let error = try #require(urlError(refused), "\(refused)")
            #expect(error.code == .secureConnectionFailed)
            #expect("\(error.localizedDescription)".contains("pinned"), "\(error.localizedDescription)")
        }

        @Test(
            "a server that asks for a client certificate gets the one configured, and refuses a client without"
        )
        func mutualTLS() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(
                certificate: "server.pem", mode: .clientCertificateRequired)
            let client = fixture.makeClientCertificate()
            let withCertificate = try await fetch(
                fixture, port: port,
                tls: TLSOptions(clientCertificate: client.certificate, clientKey: client.key))
            #expect(try withCertificate.get() == Echo(path: "/hello", authorization: nil))
            let without = try await fetch(fixture, port: port, tls: TLSOptions())
            #expect(urlError(without) != nil, "\(without)")
        }

        @Test("TLS 1.3 as the minimum refuses a server that stops at 1.2; the default accepts it")
        func minimumVersion() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(certificate: "server.pem", mode: .tls12Only)
            let accepted = try await fetch(fixture, port: port, tls: TLSOptions())
            #expect(try accepted.get() == Echo(path: "/hello", authorization: nil))
            let refused = try await fetch(fixture, port: port, tls: TLSOptions(minimumVersion: .tls13))
            #expect(urlError(refused)?.code == .secureConnectionFailed, "\(refused)")
        }

        @Test("the transport's CA file alone can be trusted; with none, nothing is")
        func onlyOwnRoots() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(certificate: "server.pem")
            let own = try await fetch(fixture, port: port, tls: TLSOptions(trustsSystemCertificates: false))
            #expect(try own.get() == Echo(path: "/hello", authorization: nil))
            let transport = try #require(CurlTransport(tls: TLSOptions(trustsSystemCertificates: false)))
            let api = SecureAPI(baseURL: "https://localhost:\(port)", transport: transport)
            let error = await (api.request(route: api.get(endpoint: "/hello")) as Promise<Echo>).apiError
            guard case .transport(let underlying as URLError, _) = error else {
                Issue.record("expected a TLS failure, got \(String(describing: error))")
                return
            }
            #expect(
                underlying.code == .serverCertificateUntrusted || underlying.code == .secureConnectionFailed)
        }

        @Test("an exchange over TLS reports its handshake, before the first byte")
        func handshakeMetrics() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(certificate: "server.pem")
            let transport = try #require(CurlTransport(trustedCertificates: fixture.authority))
            let api = SecureAPI(baseURL: "https://localhost:\(port)", transport: transport)
            let response: APIResponse<Echo> = try await api.request(route: api.get(endpoint: "/hello")).value
            let metrics = try #require(response.metrics)
            let handshake = try #require(metrics.secureConnection)
            #expect(handshake > 0)
            let setUp = try #require(metrics.domainLookup) + (try #require(metrics.connect)) + handshake
            #expect(setUp <= metrics.firstByte)
            #expect(metrics.firstByte <= metrics.total)
            #expect(metrics.reusedConnection == false)
        }

        @Test("pins are written as libcurl takes them")
        func pinFormat() {
            #expect(TLSOptions().curlPins == nil)
            #expect(TLSOptions(pinnedPublicKeys: [" a= ", "", "b="]).curlPins == "sha256//a=;sha256//b=")
        }
    }
#endif
