import Foundation
import Osprey
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Cassette: each redirect recorded as an entry of its own, and followed again on replay")
struct CassetteRedirectTests {
    /// A server with a chain: `/a` → `/b` → `/item`, a `303` after a POST, and the final item.
    private static func server() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("GET", "/a") { _ in
            LoopbackServer.Response(status: 301, headers: [.init("Location", "/b")])
        }
        server.route("GET", "/b") { _ in
            LoopbackServer.Response(status: 302, headers: [.init("Location", "/item")])
        }
        server.route("GET", "/item") { _ in .json(#"{"name": "final", "count": 1}"#) }
        server.route("POST", "/orders") { _ in
            LoopbackServer.Response(status: 303, headers: [.init("Location", "/orders/7")])
        }
        server.route("GET", "/orders/7") { _ in .json(#"{"name": "order", "count": 7}"#) }
        return server
    }

    private static func sent(
        _ cassette: Cassette, _ url: URL, method: String = "GET", body: Data? = nil,
        policy: RedirectPolicy = .follow(limit: 10)
    ) -> Promise<TransportResponse> {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return cassette.send(TransportRequest(urlRequest: request, redirectPolicy: policy))
    }

    private static func send(
        _ cassette: Cassette, _ url: URL, method: String = "GET", body: Data? = nil,
        policy: RedirectPolicy = .follow(limit: 10)
    ) async throws -> TransportResponse {
        try await sent(cassette, url, method: method, body: body, policy: policy).value
    }

    @Test("a chain of two redirects is three entries; the replay follows them with the server gone")
    func chainRecordedAndReplayed() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try Self.server()
        let live = try await Self.send(
            try Cassette(file: folder.file(), transport: liveTransport()), server.url("/a"))
        server.stop()
        #expect(live.redirects.map(\.statusCode) == [301, 302])
        #expect(live.redirects.map { $0.request.url?.path } == ["/a", "/b"])

        let entries = try HAR(data: Data(contentsOf: folder.file())).log.entries
        #expect(entries.map { URL(string: $0.request.url)?.path } == ["/a", "/b", "/item"])
        #expect(entries.map(\.response.status) == [301, 302, 200])
        #expect(entries.map(\.response.redirectURL) == ["/b", "/item", ""])
        #expect(entries.allSatisfy { $0.response.url == nil }, "each entry is answered by its own URL")

        let replayed = try await Self.send(try Cassette(file: folder.file(), mode: .none), server.url("/a"))
        #expect(replayed.statusCode == 200)
        #expect(replayed.data == live.data)
        #expect(replayed.request.url == server.url("/item"))
        #expect(replayed.response.url == server.url("/item"))
        #expect(replayed.redirects.map(\.statusCode) == [301, 302])
        #expect(replayed.redirects.map { $0.request.url?.path } == ["/a", "/b"])
        #expect(server.requests.count == 3)
    }

    @Test("the replay obeys the request's policy: not followed, or refused past its limit")
    func policyObeyedOnReplay() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try Self.server()
        _ = try await Self.send(
            try Cassette(file: folder.file(), transport: liveTransport()), server.url("/a"))
        server.stop()

        let notFollowed = try await Self.send(
            try Cassette(file: folder.file(), mode: .none), server.url("/a"), policy: .doNotFollow)
        #expect(notFollowed.statusCode == 301)
        #expect(notFollowed.headers["Location"] == "/b")
        #expect(notFollowed.redirects.isEmpty)

        let limited = await Self.sent(
            try Cassette(file: folder.file(), mode: .none), server.url("/a"), policy: .follow(limit: 1)
        ).result
        guard case .failure(APIError.redirectRefused(let reason, _)) = limited else {
            Issue.record("expected the second redirect refused, got \(limited)")
            return
        }
        #expect(reason.contains("more than 1"))
    }

    @Test("a 303 after a POST replays as the GET the transport sent, without the body")
    func seeOtherAfterPost() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try Self.server()
        let body = Data(#"{"name": "order"}"#.utf8)
        _ = try await Self.send(
            try Cassette(file: folder.file(), transport: liveTransport()), server.url("/orders"),
            method: "POST",
            body: body)
        server.stop()
        let entries = try HAR(data: Data(contentsOf: folder.file())).log.entries
        #expect(entries.map(\.request.method) == ["POST", "GET"])
        #expect(entries[0].request.postData?.text == #"{"name": "order"}"#)
        #expect(entries[1].request.postData == nil)
        #expect(entries[1].request.headers.contains { $0.name.lowercased() == "content-type" } == false)

        let player = try Cassette(file: folder.file(), mode: .none, matching: .methodAndURL.body)
        let replayed = try await Self.send(player, server.url("/orders"), method: "POST", body: body)
        #expect(String(decoding: replayed.data, as: UTF8.self) == #"{"name": "order", "count": 7}"#)
        #expect(replayed.request.httpMethod == "GET")
    }

    @Test("a redirect whose next hop was never recorded fails naming that hop")
    func missingHop() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try Self.server()
        _ = try await Self.send(
            try Cassette(file: folder.file(), transport: liveTransport()), server.url("/a"),
            policy: .doNotFollow)
        server.stop()
        let result = await Self.sent(try Cassette(file: folder.file(), mode: .none), server.url("/a")).result
        guard case .failure(APIError.transport(let underlying as Cassette.Unmatched, _)) = result else {
            Issue.record("expected Unmatched, got \(result)")
            return
        }
        #expect(underlying.request == "GET \(server.url("/b"))")
        #expect(underlying.nearest == "GET \(server.url("/a"))")
    }

    @Test("through an API, a redirected request replays to the same value and final URL")
    func throughAnAPI() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try Self.server()
        let baseURL = server.url("").absoluteString
        func fetch(_ cassette: Cassette) async throws -> APIResponse<RecordedAPI.Item> {
            let api = RecordedAPI(baseURL: baseURL, transport: cassette)
            return try await api.request(route: api.get(endpoint: "/a")).value
        }
        let live = try await fetch(try Cassette(file: folder.file(), transport: liveTransport()))
        server.stop()
        let replayed = try await fetch(try Cassette(file: folder.file(), mode: .none))
        #expect(replayed.value == live.value)
        #expect(replayed.request.url == server.url("/item"))
        #expect(replayed.response.url == server.url("/item"))
    }
}
