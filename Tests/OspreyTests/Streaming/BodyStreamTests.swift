import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// Request bodies produced as they are sent, on the test transport (both, in CI).
@Suite("Streaming: request bodies from a sequence")
struct BodyStreamTests {
    /// `count` pieces of `size` bytes.
    private func pieces(_ count: Int, of size: Int = 1000) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for index in 0..<count {
                continuation.yield(Data(repeating: UInt8(65 + index % 26), count: size))
            }
            continuation.finish()
        }
    }

    private func echoServer() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/upload") { request in .echo(of: request) }
        return server
    }

    @Test("a body with a length is sent whole with its Content-Length")
    func withLength() async throws {
        let server = try echoServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.put(endpoint: "/upload"),
            parameters: StreamParameters(BodyStream(pieces(50), length: 50_000), contentType: "text/plain")
        ).value
        #expect(echo.body.count == 50_000)
        #expect(echo.body.prefix(1000) == Data(repeating: 65, count: 1000))
        #expect(echo.value(forHeader: "Content-Length") == "50000")
        #expect(echo.value(forHeader: "Content-Type") == "text/plain")
    }

    @Test("a body without a length goes chunked on libcurl; URLSession spools it and sends a length")
    func withoutLength() async throws {
        let server = try echoServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.post(endpoint: "/upload"), parameters: StreamParameters(BodyStream(pieces(30)))
        ).value
        #expect(echo.body.count == 30_000)
        if TestTransport.isURLSession {
            #expect(echo.value(forHeader: "Content-Length") == "30000")
        } else {
            #expect(echo.value(forHeader: "Transfer-Encoding") == "chunked")
            #expect(echo.value(forHeader: "Expect") == nil)
        }
    }

    @Test("libcurl sends the first pieces before the sequence has made the rest")
    func sentAsProduced() async throws {
        guard !TestTransport.isURLSession else { return }
        let server = try echoServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let body = AsyncStream<Data> { continuation in
            Task {
                continuation.yield(Data(repeating: 0x61, count: 4096))
                // The rest only once the server has the first piece.
                _ = await server.waitForReceivedBytes(atLeast: 4096)
                continuation.yield(Data(repeating: 0x62, count: 4096))
                continuation.finish()
            }
        }
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.post(endpoint: "/upload"), parameters: StreamParameters(BodyStream(body, length: 8192))
        ).value
        #expect(echo.body == Data(repeating: 0x61, count: 4096) + Data(repeating: 0x62, count: 4096))
    }

    @Test("a sequence that makes another length than declared fails the request")
    func lengthMismatch() async throws {
        let server = try echoServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let promise: Promise<Data> = api.request(
            route: api.post(endpoint: "/upload"),
            parameters: StreamParameters(BodyStream(pieces(3), length: 5000)))
        let error = try #require(await promise.apiError)
        #expect(error.underlyingError is BodyStreamLengthMismatch, "\(error)")
    }

    /// A request line a keep-alive server would read as the next request.
    private static var smuggled: Data { Data("GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8) }

    @Test("bytes beyond a declared length never reach the wire: the request fails instead")
    func overrunInOnePiece() async throws {
        let server = try echoServer()
        defer { server.stop() }
        server.route("/smuggled") { _ in .text("smuggled") }
        let api = TestAPI(server)
        let body = AsyncStream<Data> { continuation in
            continuation.yield(Data("01234".utf8))
            continuation.yield(Data("56789".utf8) + Self.smuggled)
            continuation.yield(Self.smuggled)
            continuation.finish()
        }
        let promise: Promise<Data> = api.request(
            route: api.post(endpoint: "/upload"), parameters: StreamParameters(BodyStream(body, length: 10)))
        let error = try #require(await promise.apiError)
        let mismatch = try #require(error.underlyingError as? BodyStreamLengthMismatch, "\(error)")
        #expect(mismatch.declared == 10)
        #expect(mismatch.produced == 10 + Int64(Self.smuggled.count))
        #expect(!server.requests.contains { $0.body.starts(with: Data("0123456789".utf8)) })
        // A second request on the same connection would have been answered by now.
        let after: Data = try await api.request(route: api.get(endpoint: "/smuggled")).value
        #expect(after == Data("smuggled".utf8))
        #expect(server.requests.map(\.path).filter { $0 == "/smuggled" }.count == 1)
    }

    @Test("a surplus that comes while libcurl waits for the answer fails the request, unsent")
    func overrunAfterTheLength() async throws {
        // URLSession sends nothing before the whole sequence has ended (overrunInOnePiece covers it).
        guard !TestTransport.isURLSession else { return }
        let server = try LoopbackServer()
        defer { server.stop() }
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        server.route("/upload") { request in
            // Answers only when the test ends: the request must fail without an answer. (Ten
            // minutes: under ThreadSanitizer on two cores this test once took 264 s.)
            _ = release.wait(timeout: .now() + 600)
            return .echo(of: request)
        }
        server.route("/smuggled") { _ in .text("smuggled") }
        let api = TestAPI(server)
        let body = AsyncStream<Data> { continuation in
            Task {
                continuation.yield(Data("0123456789".utf8))
                _ = await server.waitForRequests(count: 1, timeout: 60)
                continuation.yield(Self.smuggled)
                continuation.finish()
            }
        }
        let promise: Promise<Data> = api.request(
            route: api.post(endpoint: "/upload"), parameters: StreamParameters(BodyStream(body, length: 10)))
        let error = try #require(await promise.apiError)
        #expect(error.underlyingError is BodyStreamLengthMismatch, "\(error)")
        #expect(server.requests.map(\.path) == ["/upload"])
        #expect(server.requests.first?.body == Data("0123456789".utf8))
    }

    @Test("a sequence that throws fails the request with its error")
    func sequenceFails() async throws {
        struct Broken: Error {}
        let server = try echoServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("start".utf8))
            continuation.finish(throwing: Broken())
        }
        let promise: Promise<Data> = api.request(
            route: api.post(endpoint: "/upload"), parameters: StreamParameters(BodyStream(failing)))
        let error = try #require(await promise.apiError)
        #expect(error.underlyingError is Broken, "\(error)")
    }

    @Test("a body read once is not retried; one made anew is, with every byte again")
    func retries() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let attempts = Locked(0)
        server.route("/upload") { request in
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            return attempt == 1 ? .text("busy", status: 503) : .echo(of: request)
        }
        let api = TestAPI(server)
        var policy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0)
        policy.random = { 0 }
        api.configuration.retryPolicy = policy

        let once: Promise<Data> = api.request(
            route: api.put(endpoint: "/upload"),
            parameters: StreamParameters(BodyStream(pieces(4), length: 4000)))
        #expect(try #require(await once.apiError).statusCode == 503)
        #expect(attempts.withLock { $0 } == 1)

        attempts.withLock { $0 = 0 }
        let replayable = BodyStream(length: 4000) { self.pieces(4) }
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.put(endpoint: "/upload"), parameters: StreamParameters(replayable)
        ).value
        #expect(attempts.withLock { $0 } == 2)
        #expect(echo.body.count == 4000)
    }
}
