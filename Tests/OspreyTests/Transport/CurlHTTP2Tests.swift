#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// HTTP/2 through the libcurl transport: used over TLS when the server offers it, never over
    /// plain http (no cleartext upgrade), against Hypercorn with a certificate made at test time.
    @Suite(
        "Transport: CurlTransport speaks HTTP/2 over TLS",
        .enabled(
            if: TLSFixture.hypercorn != nil, "OSPREY_HYPERCORN is not set: run the tests with Scripts/test.sh"
        ))
    struct CurlHTTP2Tests {
        struct Seen: Decodable, Equatable {
            var version: String
            var path: String
            /// The client's port: one per connection.
            var client: Int
        }

        final class VersionAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
            let baseURL: String

            init(baseURL: String, trusting authority: URL) throws {
                self.baseURL = baseURL
                let transport = try #require(CurlTransport(trustedCertificates: authority))
                super.init(responseParser: JSONParser(), transport: transport)
                responseQueue = DispatchQueue(label: "h2.response")
            }
        }

        @Test("libcurl is built with HTTP/2 here, as Debian builds it")
        func libraryHasHTTP2() {
            #expect(CurlLibrary.supportsHTTP2)
        }

        @Test(
            "https requests go over HTTP/2: 32 started at once share one connection, each answered correctly")
        func overTLS() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let port = try await fixture.startHTTP2Server()
            let api = try VersionAPI(baseURL: "https://localhost:\(port)", trusting: fixture.authority)
            // All at once, before any connection exists: they wait for the first one and share it.
            let promises = (0..<32).map { index -> Promise<Seen> in
                api.request(route: api.get(endpoint: "/many/\(index)"))
            }
            var clients = Set<Int>()
            for (index, promise) in promises.enumerated() {
                if let seen = await Self.answer(promise, path: "/many/\(index)") {
                    clients.insert(seen.client)
                }
            }
            #expect(clients.count == 1, "\(clients.count) connections")
            // One after another, on easy handles that carried HTTP/2 transfers before.
            for index in 0..<4 {
                _ = await Self.answer(
                    api.request(route: api.get(endpoint: "/again/\(index)")), path: "/again/\(index)")
            }
        }

        /// The answer, checked: HTTP/2 and the path asked for; nil (and an issue recorded with
        /// libcurl's own words, from the underlying error) when the request failed.
        private static func answer(_ promise: Promise<Seen>, path: String) async -> Seen? {
            switch await promise.result {
            case .success(let seen):
                #expect(seen.version == "2")
                #expect(seen.path == path)
                return seen
            case .failure(let error):
                Issue.record(
                    "\(path): \(error), \((error as? APIError)?.underlyingError.map { "\($0)" } ?? "")")
                return nil
            }
        }

        @Test("plain http stays HTTP/1.1: no cleartext upgrade is attempted")
        func plainStaysHTTP1() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/plain") { .echo(of: $0) }
            let transport = try #require(CurlTransport())
            let api = TestAPI(server, transport: transport)
            let _: LoopbackServer.Echo = try await api.request(route: api.get(endpoint: "/plain")).value
            let sent = try #require(server.requests.first)
            #expect(sent.version == "HTTP/1.1")
            #expect(sent.value(forHeader: "Upgrade") == nil)
            #expect(sent.value(forHeader: "HTTP2-Settings") == nil)
        }
    }
#endif
