import Foundation
import OspreyTesting
import Testing

@testable import Osprey

@Suite("Transport: faults become clear errors")
struct TransportFaultTests {
    @Test("a 401 with a Basic challenge completes promptly as a 401 with its body")
    func basicChallenge() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/private") { _ in
            .basicChallenge(realm: "r", body: #"{"code": 1, "message": "log in"}"#)
        }
        let api = TestAPI(server, parser: MessageParser())
        let promise: Promise<Void> = api.request(route: api.get(endpoint: "/private"))
        // FoundationNetworking 6.3.1 would wait for ever; Osprey's answer takes milliseconds.
        let error = try #require(await promise.timeout(5).apiError)
        #expect(error.statusCode == 401)
        #expect(error.response?.value(forHTTPHeaderField: "WWW-Authenticate") == "Basic realm=\"r\"")
        #expect(error.data == Data(#"{"code": 1, "message": "log in"}"#.utf8))
        guard case .unacceptableStatus(_, let serverError) = error else {
            Issue.record("expected unacceptableStatus, got \(error)")
            return
        }
        #expect(serverError as? ServerMessage == ServerMessage(code: 1, message: "log in"))
    }

    @Test("a head dripped in a line at a time: activity for libcurl, only complete for URLSession on Linux")
    func drippedHead() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        // About 24 lines, 0.3 s apart: 7.2 s for the whole head, against a 4 s idle timeout
        // (long enough that a busy machine's late line is not a timeout for libcurl).
        var response = LoopbackServer.Response.json(#"[1]"#)
        for index in 0..<20 { response = response.adding(header: "X-Line-\(index)", "\(index)") }
        let dripped = response.drippingHead(every: 0.3)
        server.route("/dripped") { _ in dripped }
        let api = TestAPI(server)
        let promise: Promise<[Int]> = api.request(
            route: api.get(endpoint: "/dripped"), parameters: URLParameters(timeout: 4))
        let result = await promise.result
        #if os(Linux)
            if TestTransport.isURLSession {
                // FoundationNetworking reports the head once it is complete: the idle timeout fires.
                guard case .failure(APIError.timedOut) = result else {
                    Issue.record("expected timedOut on URLSessionTransport, got \(result)")
                    return
                }
                return
            }
        #endif
        // libcurl hands over each header line as it comes: every line is activity.
        #expect(try result.get() == [1])
    }

    @Test(
        "a truncated body is a transport error, never a success",
        arguments: [
            LoopbackServer.Response.text(String(repeating: "x", count: 100)).closingConnection(
                afterBodyBytes: 50),
            .text("short").overstatingContentLength(by: 10),
            .text(String(repeating: "y", count: 100)).chunked(chunkSize: 10).closingConnection(
                afterBodyBytes: 35),
        ])
    func truncated(response: LoopbackServer.Response) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/cut") { _ in response }
        let api = TestAPI(server)
        let promise: Promise<Data> = api.request(route: api.get(endpoint: "/cut"))
        guard case .transport = try #require(await promise.apiError) else {
            Issue.record("expected a transport error")
            return
        }
    }

    @Test("a body over the size limit fails, with a known or an unknown length")
    func tooLarge() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/known") { _ in LoopbackServer.Response(body: Data(count: 200_000)) }
        // Throttled (about 8 MB/s): FoundationNetworking has no backpressure, and an unthrottled
        // endless body on loopback outruns cancellation, queueing data in memory without bound.
        server.route("/endless") { _ in .text("").endlessBody(chunk: Data(count: 8192), every: 0.001) }
        let api = TestAPI(server)
        api.configuration.maximumResponseBytes = 100_000
        for path in ["/known", "/endless"] {
            let promise: Promise<Data> = api.request(route: api.get(endpoint: "\(raw: path)"))
            guard case .responseTooLarge(let limit, _) = try #require(await promise.apiError) else {
                Issue.record("expected responseTooLarge for \(path)")
                continue
            }
            #expect(limit == 100_000)
        }
        // The endless body stopped: the server saw the connection go while the API, and its
        // session, are still alive.
        #expect(await server.waitUntilNoOpenConnections(timeout: 20))
        withExtendedLifetime(api) {}
    }

    @Test("no idle timeout means none: URLSession's own timer never fires")
    func noIdleTimeout() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/late") { _ in .text("late").delayingHead(by: 2) }
        let api = TestAPI(server)
        api.configuration.timeout = nil
        // As if URLSession's default (60 s) were 1 s: without Osprey's own value it would fire.
        api.configuration.adapters = [AdaptRequest { $0.timeoutInterval = 1 }]
        let body: String = try await api.request(route: api.get(endpoint: "/late")).value
        #expect(body == "late")
    }

    @Test("a 401 with a Digest challenge arrives promptly as a 401, never a hang or a crash")
    func digestChallenge() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/digest") { _ in
            LoopbackServer.Response.text("digest please", status: 401).adding(
                header: "WWW-Authenticate", #"Digest realm="r", qop="auth", nonce="abc", opaque="xyz""#)
        }
        let api = TestAPI(server)
        let promise: Promise<Void> = api.request(route: api.get(endpoint: "/digest"))
        let error = try #require(await promise.timeout(20).apiError)
        #expect(error.statusCode == 401)
        #expect(error.data == Data("digest please".utf8))
    }

    @Test("cancelling while the body arrives settles as cancelled and the server sees the close")
    func cancelMidBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/half") { _ in
            .text(String(repeating: "b", count: 1000)).pausingBody(afterBytes: 500, for: 3600)
        }
        let api = TestAPI(server)
        let promise: Promise<String> = api.request(route: api.get(endpoint: "/half"))
        #expect(await server.waitForRequests(count: 1))
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.value }
        #expect(await server.waitUntilNoOpenConnections(timeout: 30))
        withExtendedLifetime(api) {}
    }

    @Test("a refused connection is a transport error")
    func refused() async throws {
        let server = try LoopbackServer()
        let api = TestAPI(server)
        server.stop()
        let promise: Promise<Void> = api.request(route: api.get(endpoint: "/x"))
        guard case .transport = try #require(await promise.apiError) else {
            Issue.record("expected a transport error")
            return
        }
    }

}

/// Reaches the internal redirect rules for the downgrade check.
enum RedirectRulesProbe {
    enum Outcome {
        case follow
        case refuse
        case deliver
    }

    static func decide(_ response: HTTPURLResponse, _ request: URLRequest) -> Outcome {
        switch RedirectRules.decide(after: response, to: request, original: request, sensitiveHeaders: []) {
        case .follow: .follow
        case .refuse: .refuse
        case .deliver: .deliver
        }
    }
}
