#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// HTTPS through the libcurl transport, against servers with certificates made at test time.
    @Suite("Transport: CurlTransport over TLS")
    struct CurlTLSTests {
        struct Echo: Decodable, Equatable {
            var path: String
            var authorization: String?
        }

        final class SecureAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
            let baseURL: String

            init(baseURL: String, trusting authority: URL?) throws {
                self.baseURL = baseURL
                let transport = try #require(CurlTransport(trustedCertificates: authority))
                super.init(responseParser: JSONParser(), transport: transport)
                responseQueue = DispatchQueue(label: "tls.response")
            }
        }

        /// The failure of a request that must not get through: a transport error saying the
        /// secure connection failed, or nil.
        private func transportFailure(_ api: SecureAPI, path: String = "/hello") async -> APIError? {
            let echo: Promise<Echo> = api.request(route: api.get(endpoint: path))
            guard case .failure(let error as APIError) = await echo.result,
                case .transport(let underlying as URLError, _) = error,
                underlying.code == .secureConnectionFailed
            else { return nil }
            return error
        }

        @Test("a server whose CA is trusted through the option answers; without the option it is refused")
        func trustedThroughTheOption() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(certificate: "server.pem")
            let trusted = try SecureAPI(baseURL: "https://localhost:\(port)", trusting: fixture.authority)
            let echo: Echo = try await trusted.request(route: trusted.get(endpoint: "/hello")).value
            #expect(echo == Echo(path: "/hello", authorization: nil))
            let untrusted = try SecureAPI(baseURL: "https://localhost:\(port)", trusting: nil)
            #expect(await transportFailure(untrusted) != nil)
        }

        @Test("an expired certificate, or one for another host, fails as a transport error")
        func expiredOrWrongHost() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let expired = try await fixture.startServer(certificate: "expired.pem")
            let valid = try await fixture.startServer(certificate: "server.pem")
            let expiredAPI = try SecureAPI(
                baseURL: "https://localhost:\(expired)", trusting: fixture.authority)
            #expect(await transportFailure(expiredAPI) != nil)
            // The certificate names localhost, not 127.0.0.1.
            let wrongHost = try SecureAPI(baseURL: "https://127.0.0.1:\(valid)", trusting: fixture.authority)
            #expect(await transportFailure(wrongHost) != nil)
        }

        @Test("an https redirect to plain http is refused: the credentials never go over http")
        func noDowngrade() async throws {
            let plain = try LoopbackServer()
            defer { plain.stop() }
            plain.route("/echo") { .echo(of: $0) }
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startServer(
                certificate: "server.pem", redirect: plain.url("/echo").absoluteString)
            let api = try SecureAPI(baseURL: "https://localhost:\(port)", trusting: fixture.authority)
            let echo: Promise<Echo> = api.request(
                route: api.get(endpoint: "/redirect"),
                parameters: URLParameters(headers: ["Authorization": "Bearer s"]))
            guard case .failure(APIError.redirectRefused) = await echo.result else {
                Issue.record("expected redirectRefused")
                return
            }
            #expect(plain.requests.isEmpty)
        }
    }
#endif
