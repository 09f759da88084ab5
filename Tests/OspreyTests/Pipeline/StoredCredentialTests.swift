import Foundation
import OspreyTesting
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSessionTransport sends no credential the caller did not put in the request, even with a
/// configuration whose credential store holds one for the server. On Linux the session delegate's
/// refusal of every challenge already ensures it; the transport also clears the configuration's
/// credential store, which is what ensures it on Apple platforms (not built here).
@Suite("URLSessionTransport: no credentials from a credential store")
struct StoredCredentialTests {
    @Test("a 401 is delivered as it came: the shared store's password for the realm is not sent")
    func sharedStoreIgnored() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/private") { _ in
            .basicChallenge(realm: "vault", body: #"{"code": 1, "message": "log in"}"#)
        }
        let space = URLProtectionSpace(
            host: "127.0.0.1", port: Int(server.port), protocol: "http", realm: "vault",
            authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let stored = URLCredential(user: "stored-user", password: "stored-secret", persistence: .forSession)
        URLCredentialStorage.shared.setDefaultCredential(stored, for: space)
        defer { URLCredentialStorage.shared.remove(stored, for: space) }

        // `.default` brings the shared store; the transport must not use it.
        let api = TestAPI(
            server, parser: MessageParser(), transport: URLSessionTransport(configuration: .default))
        let promise: Promise<Void> = api.request(route: api.get(endpoint: "/private"))
        let error = try #require(await promise.timeout(10).apiError)
        #expect(error.statusCode == 401)
        #expect(
            server.requests.allSatisfy { $0.value(forHeader: "Authorization") == nil }, "\(server.requests)")
        #expect(server.requests.count == 1)
    }
}
