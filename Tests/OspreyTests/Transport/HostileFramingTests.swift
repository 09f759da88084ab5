import Foundation
import Osprey
import OspreyTesting
import Testing

/// A server that frames its response wrongly: the client must fail, never succeed with a
/// short or a guessed body (RFC 9112 §6.3).
@Suite("Transport: responses with broken framing")
struct HostileFramingTests {
    @Test(
        "a Content-Length that is not one non-negative decimal integer is a transport error",
        arguments: [
            (["12", "5"], "differing"),
            (["12, 5"], "differing"),
            (["12abc"], "not a non-negative decimal integer"),
            (["+12"], "not a non-negative decimal integer"),
            (["0x0c"], "not a non-negative decimal integer"),
            (["1 2"], "not a non-negative decimal integer"),
            (["12, "], "not a non-negative decimal integer"),
            // libcurl refuses these two itself, in its own words.
            (["-1"], "Content-Length"),
            ([""], "Content-Length"),
        ])
    func malformedLength(values: [String], expected: String) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/framed") { _ in
            var response = LoopbackServer.Response(body: Data("hello, world".utf8))  // 12 bytes
            for value in values { response = response.adding(header: "Content-Length", value) }
            return response
        }
        let api = TestAPI(server)
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/framed"))
        let result = await promise.result
        guard case .failure(let error as APIError) = result else {
            Issue.record("expected an APIError, got \(result)")
            return
        }
        guard case .transport(let underlying, _) = error else {
            Issue.record("expected a transport error, got \(error)")
            return
        }
        #expect("\(underlying)".contains("Content-Length"), "\(underlying)")
        #expect("\(underlying)".contains(expected), "\(underlying)")
    }

    @Test("repeated identical Content-Length values are one length")
    func identicalLengths() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/framed") { _ in
            LoopbackServer.Response(body: Data("hello, world".utf8))
                .adding(header: "Content-Length", "12").adding(header: "Content-Length", "12")
        }
        let api = TestAPI(server)
        let body: Data = try await api.request(route: api.get(endpoint: "/framed")).value
        #expect(body == Data("hello, world".utf8))
    }

    @Test(
        "a Content-Length beyond 64 bits is too large at once, whatever the limit",
        arguments: [Int?.some(1 << 20), nil])
    func impossibleLength(limit: Int?) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/huge") { _ in
            LoopbackServer.Response(body: Data("hello, world".utf8))
                .adding(header: "Content-Length", "100000000000000000000000")
        }
        let api = TestAPI(server)
        api.configuration.maximumResponseBytes = limit
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/huge"))
        let error = try #require(await promise.apiError)
        guard case .responseTooLarge = error else {
            Issue.record("expected responseTooLarge, got \(error)")
            return
        }
    }

    /// libcurl 7.88 (under FoundationNetworking) puts a kept-alive connection back in its pool
    /// even when the server writes more bytes a moment after a complete response, and the next
    /// request then reads them as its answer. URLSession cannot retire one connection; what an
    /// API can do is not reuse connections with a server it does not trust.
    @Test("Connection: close gives every request its own connection, so stray bytes reach no one")
    func strayBytesAfterAResponse() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let smuggled = Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil".utf8)
        server.route("/empty") { _ in
            LoopbackServer.Response(status: 204).followedByRawBytes(smuggled, after: 0.2)
        }
        server.route("/next") { _ in .text("next") }
        let api = TestAPI(server)
        api.configuration.headers["Connection"] = "close"

        try await api.request(route: api.get(endpoint: "/empty")).value as Void
        let next: String = try await api.request(route: api.get(endpoint: "/next")).value
        #expect(next == "next")
        let connections = server.requests.map(\.connectionID)
        #expect(connections.count == 2 && connections[0] != connections[1], "\(connections)")
    }

    @Test("a short Content-Encoding chain is decoded; a long one fails, never a crash or a hang")
    func encodingChain() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        @Sendable func chained(_ count: Int) -> LoopbackServer.Response {
            var body = Data("layered".utf8)
            for _ in 0..<count { body = Gzip.encode(body) }
            let codings = Array(repeating: "gzip", count: count).joined(separator: ", ")
            return LoopbackServer.Response(body: body).adding(header: "Content-Encoding", codings)
        }
        server.route("/two") { _ in chained(2) }
        server.route("/many") { _ in chained(12) }
        let api = TestAPI(server)
        let two: String = try await api.request(route: api.get(endpoint: "/two")).value
        #expect(two == "layered")
        let many: Promise<String> = api.request(route: api.get(endpoint: "/many"))
        switch await many.timeout(20).result {
        case .success(let text):
            // libcurl refuses chains longer than 5 (CVE-2022-32206); a platform that decodes
            // them must at least decode them right.
            #if canImport(FoundationNetworking)
                Issue.record("a 12-deep chain was accepted: \(text)")
            #else
                #expect(text == "layered")
            #endif
        case .failure(let error):
            guard case APIError.transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
        }
    }
}
