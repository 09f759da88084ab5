import Foundation
import GitHubClientExample
import Osprey
import OspreyTesting
import Testing

/// The GitHub client's tests run offline from a recording: `Tests/Recordings/github.har`, made
/// against a loopback server that answers as GitHub does (pages with `Link` headers, a created
/// repository, GitHub's error bodies). The last test records it again and compares, so the file
/// stays what the server said; `OSPREY_RECORD_CASSETTES=1` rewrites it.
@Suite("GitHubAPI: offline, from a recorded cassette")
struct GitHubRecordedTests {
    static let baseURL = "https://api.github.example"
    static let token = "ghp_recordedTokenNeverWritten"
    static let recording = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Recordings/github.har").standardized

    /// The client's calls the recording holds.
    static func exercise(_ api: GitHubAPI) async throws -> (all: [String], created: String, taken: String?) {
        let all = try await api.allRepositories(of: "octocat", perPage: 2).value.map(\.name)
        let created = try await api.createRepository(NewRepository(name: "osprey", description: "HTTP")).value
        let taken = await api.createRepository(NewRepository(name: "taken")).result
        guard case .failure(let error as APIError) = taken else { return (all, created.fullName, nil) }
        return (all, created.fullName, (error.underlyingError as? GitHubError)?.errors?.first?.field)
    }

    @Test("the client's calls replay from the recording, with no server and no network")
    func replays() async throws {
        let cassette = try Cassette(file: Self.recording, mode: .none)
        let api = GitHubAPI(baseURL: Self.baseURL, token: "any other token", transport: cassette)
        let (all, created, taken) = try await Self.exercise(api)
        #expect(all == ["alpha", "beta", "gamma"])
        #expect(created == "octocat/osprey")
        #expect(taken == "name")
    }

    @Test("a request the recording lacks fails clearly, naming it and the nearest recorded request")
    func unrecorded() async throws {
        let cassette = try Cassette(file: Self.recording, mode: .none)
        let api = GitHubAPI(baseURL: Self.baseURL, transport: cassette)
        let result = await api.repositories(of: "someone-else").result
        guard case .failure(APIError.transport(let unmatched as Cassette.Unmatched, _)) = result else {
            Issue.record("expected Cassette.Unmatched, got \(result)")
            return
        }
        #expect(unmatched.request == "GET \(Self.baseURL)/users/someone-else/repos?per_page=30")
        #expect(unmatched.nearest == "GET \(Self.baseURL)/users/octocat/repos?per_page=2")
        #expect("\(unmatched)".contains("github.har has no recorded answer for GET"))
    }

    @Test("recorded again against the loopback server, the traffic is the recording's; no token is written")
    func recordingIsTrue() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        FakeGitHub.serve(on: server, baseURL: Self.baseURL)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-gh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var redaction = HARRedaction()
        redaction.secrets = [Self.token]
        let fresh = folder.appendingPathComponent("github.har")
        let cassette = try Cassette(
            file: fresh, mode: .all,
            transport: HostRewritingTransport(from: URL(string: Self.baseURL)!, to: server.url("/")),
            redaction: redaction)
        let api = GitHubAPI(baseURL: Self.baseURL, token: Self.token, transport: cassette)
        _ = try await Self.exercise(api)
        #expect(server.requests.count == 4)
        let written = try Data(contentsOf: fresh)
        #expect(!String(decoding: written, as: UTF8.self).contains(Self.token))
        if ProcessInfo.processInfo.environment["OSPREY_RECORD_CASSETTES"] == "1" {
            try written.write(to: Self.recording)
        }
        let committed = try HAR(data: Data(contentsOf: Self.recording))
        #expect(
            Self.traffic(of: try HAR(data: written)) == Self.traffic(of: committed),
            "Tests/Recordings/github.har is not what the server says now: rerun with OSPREY_RECORD_CASSETTES=1"
        )
    }

    /// The archive without what changes from one recording to the next: times, the server's date.
    static func traffic(of archive: HAR) -> [HAR.Entry] {
        archive.log.entries.map { entry in
            var entry = entry
            entry.startedDateTime = ""
            entry.time = 0
            entry.timings = HAR.Timings(send: 0, wait: 0, receive: 0)
            entry.response.headers.removeAll { $0.name.lowercased() == "date" }
            return entry
        }
    }
}

/// GitHub's answers, from a loopback server: two pages joined by `Link` headers, a created
/// repository, and GitHub's 422 for a name already taken.
enum FakeGitHub {
    static func serve(on server: LoopbackServer, baseURL: String) {
        @Sendable func repository(_ name: String) -> String {
            #"{"name": "\#(name)", "full_name": "octocat/\#(name)", "stargazers_count": 7}"#
        }
        server.route("GET", "/users/:user/repos") { _ in
            var page = LoopbackServer.Response.json("[\(repository("alpha")), \(repository("beta"))]")
            page.headers.append(.init("Link", #"<\#(baseURL)/user/583231/repos?page=2>; rel="next""#))
            return page
        }
        server.route("GET", "/user/:id/repos") { _ in .json("[\(repository("gamma"))]") }
        server.route("POST", "/user/repos") { request in
            if String(decoding: request.body, as: UTF8.self).contains(#""taken""#) {
                return .json(
                    #"{"message": "Validation Failed", "errors": [{"resource": "Repository", "code": "custom", "field": "name", "message": "name already exists on this account"}]}"#,
                    status: 422)
            }
            return .json(repository("osprey"), status: 201)
        }
    }
}

/// Sends requests for one origin to another (the loopback server) and gives the answers back
/// under the first, so that a recording holds the real API's URLs.
struct HostRewritingTransport: HTTPTransport {
    let from: URL
    let to: URL
    let base: any HTTPTransport = URLSessionTransport()

    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        var rewritten = request
        rewritten.urlRequest.url = request.urlRequest.url.map { replace($0, from, to) }
        return base.send(rewritten).then { response in
            var answered = response
            answered.request.url = response.request.url.map { replace($0, to, from) }
            let url = response.response.url.map { replace($0, to, from) } ?? from
            let fields = Dictionary(response.headers.map { ($0.name, $0.value) }) { first, _ in first }
            if let head = HTTPURLResponse(
                url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
            {
                answered.response = head
            }
            return answered
        }
    }

    private func replace(_ url: URL, _ old: URL, _ new: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let oldComponents = URLComponents(url: old, resolvingAgainstBaseURL: false)
        guard components?.host == oldComponents?.host, components?.port == oldComponents?.port else {
            return url
        }
        let newComponents = URLComponents(url: new, resolvingAgainstBaseURL: false)
        components?.scheme = newComponents?.scheme
        components?.host = newComponents?.host
        components?.port = newComponents?.port
        return components?.url ?? url
    }
}
