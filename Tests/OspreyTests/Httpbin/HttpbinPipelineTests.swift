import Foundation
import Osprey
import OspreyTesting
import Testing

/// The pipeline against a third-party server: statuses, redirects (cross-origin through
/// `127.0.0.1` versus `localhost`), delays, compression, Basic and Bearer authentication.
@Suite(
    "httpbin: the pipeline end to end",
    .enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set: run the tests with Scripts/test.sh")
)
struct HttpbinPipelineTests {
    final class HttpbinAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init() {
            baseURL = Httpbin.baseURL!.absoluteString
            super.init(responseParser: JSONParser(), transport: TestTransport.make())
            responseQueue = DispatchQueue(label: "httpbin.api.response")
        }
    }

    struct Echo: Decodable, Sendable {
        var headers: [String: String]
        var url: String?
    }

    let api = HttpbinAPI()

    @Test(
        "status codes: 2xx succeed, others fail with the status",
        arguments: [200, 201, 204, 400, 404, 418, 500, 503])
    func statuses(code: Int) async {
        let result: Result<Void, any Error> = await api.request(route: api.get(endpoint: "/status/\(code)"))
            .result
        switch result {
        case .success: #expect((200..<300).contains(code))
        case .failure(let error): #expect((error as? APIError)?.statusCode == code)
        }
    }

    @Test("a cross-origin redirect drops Authorization and the API key; same-origin keeps them")
    func crossOriginRedirect() async throws {
        let localhost = try #require(Httpbin.localhostURL).absoluteString
        let headers: HTTPHeaders = ["Authorization": "Bearer secret", "X-Api-Key": "key", "X-Other": "kept"]
        let away: Echo = try await api.request(
            route: api.get(endpoint: "/redirect-to?url=\(localhost + "/anything")&status_code=302"),
            parameters: URLParameters(headers: headers)
        ).value
        #expect(away.headers["Authorization"] == nil)
        #expect(away.headers["X-Api-Key"] == nil)
        #expect(away.headers["X-Other"] == "kept")
        let near: Echo = try await api.request(
            route: api.get(endpoint: "/redirect-to?url=\("/anything")"),
            parameters: URLParameters(headers: headers)
        ).value
        #expect(near.headers["Authorization"] == "Bearer secret")
    }

    @Test("relative and absolute redirect chains are followed; too many fail")
    func chains() async throws {
        let relative: Echo = try await api.request(route: api.get(endpoint: "/relative-redirect/3")).value
        #expect(relative.url?.hasSuffix("/get") == true)
        let absolute: Echo = try await api.request(route: api.get(endpoint: "/absolute-redirect/2")).value
        #expect(absolute.url?.hasSuffix("/get") == true)
        api.configuration.redirectPolicy = .follow(limit: 2)
        let tooMany: Promise<Void> = api.request(route: api.get(endpoint: "/redirect/5"))
        guard case .failure(APIError.redirectRefused) = await tooMany.result else {
            Issue.record("expected redirectRefused")
            return
        }
    }

    @Test("a delay longer than the timeout fails with timedOut")
    func delay() async {
        let slow: Promise<Void> = api.request(
            route: api.get(endpoint: "/delay/3"), parameters: URLParameters(timeout: 0.5))
        guard case .failure(APIError.timedOut) = await slow.result else {
            Issue.record("expected timedOut")
            return
        }
    }

    @Test("gzip and deflate bodies are decoded")
    func compression() async throws {
        struct Compressed: Decodable, Sendable {
            var gzipped: Bool?
            var deflated: Bool?
        }
        let gzip: Compressed = try await api.request(route: api.get(endpoint: "/gzip")).value
        #expect(gzip.gzipped == true)
        let deflate: Compressed = try await api.request(route: api.get(endpoint: "/deflate")).value
        #expect(deflate.deflated == true)
    }

    @Test("Basic auth: right credentials pass, a challenge without them is a prompt 401")
    func basicAuth() async throws {
        struct Auth: Decodable, Sendable {
            var authenticated: Bool
        }
        var headers = HTTPHeaders()
        headers.setAuthorization(.basic(username: "ada", password: "pw"))
        let ok: Auth = try await api.request(
            route: api.get(endpoint: "/basic-auth/ada/pw"), parameters: URLParameters(headers: headers)
        )
        .value
        #expect(ok.authenticated)
        let denied: Promise<Auth> = api.request(route: api.get(endpoint: "/basic-auth/ada/pw"))
        guard case .failure(let error as APIError) = await denied.timeout(20).result else {
            Issue.record("expected a 401")
            return
        }
        #expect(error.statusCode == 401)
    }

    @Test("Bearer auth: a token passes, none is a 401")
    func bearer() async throws {
        struct Token: Decodable, Sendable {
            var token: String
        }
        var headers = HTTPHeaders()
        headers.setAuthorization(.bearer("t0k3n"))
        let ok: Token = try await api.request(
            route: api.get(endpoint: "/bearer"), parameters: URLParameters(headers: headers)
        ).value
        #expect(ok.token == "t0k3n")
        let denied: Promise<Token> = api.request(route: api.get(endpoint: "/bearer"))
        #expect((await denied.result.failure as? APIError)?.statusCode == 401)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
