import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Cassette: secrets never reach a file")
struct CassetteSecretTests {
    static let token = "tok-3f9a1c77e2"
    static let password = "pw-8c21d0"
    static let apiKey = "key-51be77"
    static let sessionCookie = "sess-90ab12"
    /// Every secret the tests send: no file written by a cassette test may hold one.
    static let secrets = [token, password, apiKey, sessionCookie]

    @Test(
        "credential headers, cookies, URL credentials, named query items and JSON fields are redacted; replay still matches"
    )
    func redactedByDefaultAndAsConfigured() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/login") { _ in
            var response = LoopbackServer.Response.json(
                #"{"name": "me", "count": 1, "session": {"access_token": "\#(Self.token)"}}"#)
            response.headers.append(.init("Set-Cookie", "session=\(Self.sessionCookie); Path=/"))
            return response
        }
        let baseURL = server.url("").absoluteString
        var redaction = HARRedaction()
        redaction.queryItems = ["api_key"]
        redaction.jsonFields = ["password", "access_token"]
        redaction.secrets = [Self.token, Self.password, Self.apiKey, Self.sessionCookie]
        func login(_ cassette: Cassette) async throws -> RecordedAPI.Item {
            let api = RecordedAPI(baseURL: baseURL, transport: cassette)
            var components = URLComponents(url: server.url("/login"), resolvingAgainstBaseURL: false)!
            components.user = "user"
            components.password = Self.password
            components.queryItems = [URLQueryItem(name: "api_key", value: Self.apiKey)]
            let parameters = JSONParameters(["user": "me", "password": Self.password])
            parameters.headers = [
                "Authorization": "Bearer \(Self.token)", "Cookie": "session=\(Self.sessionCookie)",
            ]
            return try await api.request(route: .post(components.url!.absoluteString), parameters: parameters)
                .value
        }
        _ = try await login(
            try Cassette(file: folder.file(), transport: liveTransport(), redaction: redaction))
        #expect(server.requests.count == 1)
        let written = try folder.writtenText()
        for secret in redaction.secrets { #expect(!written.contains(secret)) }
        #expect(written.contains("REDACTED"))

        let replayed = try await login(
            try Cassette(file: folder.file(), mode: .none, transport: liveTransport(), redaction: redaction))
        #expect(replayed == RecordedAPI.Item(name: "me", count: 1))
        #expect(server.requests.count == 1)
    }

    @Test("a configured secret that redaction did not catch stops the file being written, and says where")
    func refusesToWriteASecret() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/profile") { _ in .json(#"{"name": "\#(Self.token)", "count": 0}"#) }
        var redaction = HARRedaction()
        redaction.secrets = [Self.token]
        let cassette = try Cassette(file: folder.file(), transport: liveTransport(), redaction: redaction)
        let api = RecordedAPI(baseURL: server.url("").absoluteString, transport: cassette)
        let result: Result<RecordedAPI.Item, any Error> = await api.request(
            route: api.get(endpoint: "/profile")
        )
        .result
        #expect(throws: HARRedaction.SecretFound.self) { try cassette.save() }
        #expect(!FileManager.default.fileExists(atPath: folder.file().path))
        guard case .failure(let error) = result else {
            Issue.record("the recording should fail when it cannot be saved")
            return
        }
        #expect("\(error)".contains("entries[0]"))
        #expect(!"\(error)".contains(Self.token))
    }

    @Test("a cassette forwards the jar of the transport it wraps, so a cache above keeps users apart")
    func forwardsTheJar() throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let jar = CookieJar()
        let wrapped = URLSessionTransport(cookies: jar)
        #expect(try Cassette(file: folder.file(), transport: wrapped).cookies === jar)
        #expect(try Cassette(file: folder.file(), transport: MockTransport()).cookies == nil)
    }

    @Test("a secret in a binary body is found in its base64 too")
    func binarySecret() throws {
        var redaction = HARRedaction()
        redaction.secrets = [Self.token]
        let body = Data([0xff, 0x00]) + Data(Self.token.utf8)
        let response = HTTPURLResponse(
            url: URL(string: "http://127.0.0.1/blob")!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "application/octet-stream"])!
        let entry = HAR.Entry(
            request: URLRequest(url: URL(string: "http://127.0.0.1/blob")!), requestBody: nil,
            response: response,
            responseBody: body, started: Date())
        #expect(entry.response.content.encoding == "base64")
        #expect(throws: HARRedaction.SecretFound.self) { try redaction.check(HAR(entries: [entry])) }
    }
}
