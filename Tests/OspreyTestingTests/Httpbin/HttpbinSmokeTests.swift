import Foundation
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(
    "httpbin: the conformance server is reachable",
    .enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set: run the tests with Scripts/test.sh")
)
struct HttpbinSmokeTests {
    struct GetEcho: Decodable {
        var args: [String: String]
        var headers: [String: String]
        var url: String
    }

    @Test("GET /get through plain URLSession echoes the query and headers")
    func get() async throws {
        let base = try #require(Httpbin.baseURL)
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: try #require(URL(string: "get?q=osprey", relativeTo: base)))
        request.setValue("smoke", forHTTPHeaderField: "X-Osprey-Test")
        let (data, response) = try await session.fetch(request)
        #expect(response.statusCode == 200)
        let echo = try JSONDecoder().decode(GetEcho.self, from: data)
        #expect(echo.args == ["q": "osprey"])
        #expect(echo.headers["X-Osprey-Test"] == "smoke")
        #expect(echo.url == "\(base.absoluteString)/get?q=osprey")
    }
}
