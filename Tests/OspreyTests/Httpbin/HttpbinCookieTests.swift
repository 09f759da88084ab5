import Foundation
import Osprey
import OspreyTesting
import Testing

/// Cookies against a third-party server, on the test transport (both, in CI): httpbin's
/// `/cookies/set` sets a cookie on a redirect to `/cookies`, which echoes what it received.
@Suite(
    "httpbin: cookies",
    .enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set: run the tests with Scripts/test.sh")
)
struct HttpbinCookieTests {
    final class CookieAPI: AbstractAPI, @unchecked Sendable {
        init() {
            super.init(responseParser: JSONParser(), transport: TestTransport.make())
        }
    }

    struct Cookies: Decodable, Sendable, Equatable {
        var cookies: [String: String]
    }

    private func url(_ path: String, on base: URL? = Httpbin.baseURL) -> String {
        base!.absoluteString + path
    }

    @Test("a session cookie set on a redirect is sent to its target and to every later request, then deleted")
    func session() async throws {
        let api = CookieAPI()
        let landing: Cookies = try await api.request(route: .get(url("/cookies/set?session=abc123"))).value
        #expect(landing.cookies == ["session": "abc123"])
        let later: Cookies = try await api.request(route: .get(url("/cookies"))).value
        #expect(later.cookies == ["session": "abc123"])
        let deleted: Cookies = try await api.request(route: .get(url("/cookies/delete?session"))).value
        #expect(deleted.cookies == [:])
        let after: Cookies = try await api.request(route: .get(url("/cookies"))).value
        #expect(after.cookies == [:])
    }

    @Test("the cookie stays with the host that set it: localhost does not get 127.0.0.1's")
    func hostOnly() async throws {
        let api = CookieAPI()
        let _: Cookies = try await api.request(route: .get(url("/cookies/set?session=abc123"))).value
        let elsewhere: Cookies = try await api.request(
            route: .get(url("/cookies", on: Httpbin.localhostURL))
        ).value
        #expect(elsewhere.cookies == [:])
    }
}
