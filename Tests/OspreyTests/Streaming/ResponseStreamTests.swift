import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// Streams through the whole pipeline, on the test transport (both, in CI).
@Suite("Streaming: ResponseStream")
struct ResponseStreamTests {
    @Test("pieces arrive before the body ends: the server holds the rest until the client saw the first")
    func piecesBeforeTheEnd() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let seenFirst = DispatchSemaphore(value: 0)
        server.route("/feed") { _ in
            .streaming(headers: [.init("Content-Type", "text/plain")]) { body in
                body.write("first\n")
                // Bounded: a client that never shows the first piece fails the test, not hangs it.
                _ = seenFirst.wait(timeout: .now() + 10)
                body.write("second\n")
            }
        }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/feed"))
        let head = try await stream.response
        #expect(head.statusCode == 200)
        #expect(head.headers["content-type"] == "text/plain")
        #expect(head.request.url?.path == "/feed")
        var lines: [String] = []
        for try await line in stream.lines {
            lines.append(line)
            if line == "first" { seenFirst.signal() }
        }
        #expect(lines == ["first", "second"])
        try await stream.completion.value
    }

    @Test("a failing status ends the stream with the API's error, its body parsed by the parser")
    func failingStatus() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in .json(#"{"code": 7, "message": "no feed"}"#, status: 403) }
        let api = TestAPI(server, parser: MessageParser())
        let stream = api.stream(route: api.get(endpoint: "/feed"))
        do {
            _ = try await stream.response
            Issue.record("expected an error")
        } catch let error as APIError {
            guard case .unacceptableStatus(let context, let serverError) = error else {
                Issue.record("expected unacceptableStatus, got \(error)")
                return
            }
            #expect(context.response?.statusCode == 403)
            #expect(serverError as? ServerMessage == ServerMessage(code: 7, message: "no feed"))
        }
        var pieces = 0
        do {
            for try await _ in stream { pieces += 1 }
            Issue.record("iterating a failed stream must throw")
        } catch {
            #expect(error is APIError)
        }
        #expect(pieces == 0)
    }

    @Test("cancelling mid-stream closes the connection (the server sees it) and ends the reader")
    func cancel() async throws {
        let server = try Self.tickingServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/endless"))
        var iterator = stream.lines.makeAsyncIterator()
        #expect(try await iterator.next() == "tick")
        stream.cancel()
        // Not an error: the reader gets CancellationError, the completion settles as cancelled.
        await #expect(throws: CancellationError.self) {
            while try await iterator.next() != nil {}
        }
        #expect(stream.completion.isCancelled)
        #expect(await server.waitUntilNoOpenConnections())
    }

    @Test("leaving the loop early stops the transfer")
    func leavingEarly() async throws {
        let server = try Self.tickingServer()
        defer { server.stop() }
        let api = TestAPI(server)
        var seen = 0
        for try await _ in api.stream(route: api.get(endpoint: "/endless")).lines {
            seen += 1
            if seen == 3 { break }
        }
        #expect(seen == 3)
        #expect(await server.waitUntilNoOpenConnections())
    }

    /// A server whose `/endless` writes `tick` lines every 50 ms until the client hangs up.
    private static func tickingServer() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/endless") { _ in
            .streaming { body in
                while body.write("tick\n") { body.pause(for: 0.05) }
            }
        }
        return server
    }

    /// A server whose `/body` streams `count` pieces of `size` bytes as fast as the client takes them.
    private static func server(streaming count: Int, piecesOf size: Int) throws -> LoopbackServer {
        let server = try LoopbackServer()
        let piece = Data(repeating: 0x61, count: size)
        server.route("/body") { _ in
            .streaming { body in
                for _ in 0..<count { guard body.write(piece) else { return } }
            }
        }
        return server
    }

    @Test("a slow reader bounds memory: the transfer pauses at the buffer size and ends complete")
    func slowReader() async throws {
        let server = try Self.server(streaming: 128, piecesOf: 64 * 1024)  // 8 MiB
        defer { server.stop() }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/body"), bufferSize: 256 * 1024)
        var total = 0
        var mostWaiting = 0
        var mostHeld = 0
        for try await data in stream {
            total += data.count
            // Held first: between the two looks only the network adds bytes (this task is the
            // reader), so a piece arriving in between counts as waiting, never as held alone.
            mostHeld = max(mostHeld, stream.buffer.heldBytes)
            mostWaiting = max(mostWaiting, stream.buffer.waitingBytes)
            // Slower than the network to the end: the pieces read must be let go meanwhile.
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(total == 8 << 20)
        #expect(mostHeld <= mostWaiting, "\(mostHeld) bytes held, \(mostWaiting) waiting at most")
        if TestTransport.isURLSession {
            // FoundationNetworking cannot be paused: pieces wait up to the hard limit.
            #expect(mostWaiting <= 16 << 20, "\(mostWaiting) bytes waited")
        } else {
            // The buffer's size, and the piece libcurl had in hand when it paused.
            #expect(mostWaiting <= 256 * 1024 + 256 * 1024, "\(mostWaiting) bytes waited")
        }
    }

    @Test(
        "a reader far behind: libcurl pauses and waits for it; URLSession on Linux fails past the hard limit")
    func readerFarBehind() async throws {
        let server = try Self.server(streaming: 160, piecesOf: 256 * 1024)  // 40 MiB
        defer { server.stop() }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/body"), bufferSize: 64 * 1024)
        var iterator = stream.makeAsyncIterator()
        var total = try #require(try await iterator.next()).count
        // The reader stops for a while: the transfer must wait for it, not run ahead.
        // (The first settle wins: the stream's end, or one second.)
        let (settledEarly, resolver) = Promise<Bool>.pending()
        stream.completion.whenSettled { _ in resolver.fulfill(true) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { resolver.fulfill(false) }
        let ended = try await settledEarly.value
        if TestTransport.isURLSession {
            let outcome = await stream.completion.result
            guard case .failure(APIError.transport(let underlying as URLError, _)) = outcome else {
                Issue.record("expected the stream to fail past its hard limit, got \(outcome)")
                return
            }
            #expect(underlying.code == .dataLengthExceedsMaximum)
            return
        }
        #expect(!ended, "the transfer should still be waiting for its reader")
        #expect(stream.buffer.waitingBytes <= 64 * 1024 + 256 * 1024)
        while let data = try await iterator.next() { total += data.count }
        #expect(total == 40 << 20)
    }

    @Test("a stream follows redirects, goes through adapters, and retries a 503 before the head")
    func pipeline() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let attempts = Locked(0)
        server.route("/old") { _ in .redirect(307, to: "/feed") }
        server.route("/feed") { request in
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            if attempt == 1 { return .text("busy", status: 503) }
            let token = request.value(forHeader: "Authorization") ?? "none"
            return .streaming { body in body.write("token \(token)\n") }
        }
        let api = TestAPI(server)
        api.configuration.adapters = [
            AdaptRequest { $0.setValue("Bearer t", forHTTPHeaderField: "Authorization") }
        ]
        var policy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0)
        policy.random = { 0 }
        api.configuration.retryPolicy = policy
        var lines: [String] = []
        for try await line in api.stream(route: api.get(endpoint: "/old")).lines { lines.append(line) }
        #expect(lines == ["token Bearer t"])
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("onLine runs its handler on the queue given, in order, and its promise settles at the end")
    func handlers() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            .streaming { body in
                for index in 0..<20 {
                    body.write("line \(index)\n")
                    body.pause(for: 0.005)
                }
            }
        }
        let api = TestAPI(server)
        let queue = DispatchQueue(label: "test.handlers")
        queue.setSpecific(key: Self.key, value: "handlers")
        let seen = Locked<[String]>([])
        let onQueue = Locked(true)
        try await api.stream(route: api.get(endpoint: "/feed")).onLine(in: queue) { line in
            if DispatchQueue.getSpecific(key: Self.key) != "handlers" { onQueue.withLock { $0 = false } }
            seen.withLock { $0.append(line) }
        }.value
        #expect(seen.withLock { $0 } == (0..<20).map { "line \($0)" })
        #expect(onQueue.withLock { $0 })
    }

    static let key = DispatchSpecificKey<String>()
}
