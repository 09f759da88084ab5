#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// Streams against a third-party server: an ASGI application under Hypercorn, over plain
    /// HTTP/1.1 (on the test transport, both in CI) and over HTTP/2 with TLS (on CurlTransport,
    /// which can trust the test's authority).
    @Suite(
        "Streaming: against Hypercorn, over HTTP/1.1 and HTTP/2",
        .enabled(
            if: TLSFixture.hypercorn != nil, "OSPREY_HYPERCORN is not set: run the tests with Scripts/test.sh"
        ), .serialized)
    struct HypercornStreamTests {
        /// The application: `/events` sends events 1 to 3 (after `Last-Event-ID`, with a
        /// heartbeat comment and `retry: 20`) then ends, and answers `204` once all were seen;
        /// `/upload` counts the body's bytes and says how it was framed; `/held` sends one event,
        /// then the next only once the client has fetched `/release` (a second request).
        static let app = """
            import asyncio, json

            released = asyncio.Event()

            async def start(send, status, content_type):
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", content_type), (b"cache-control", b"no-cache")]})

            async def app(scope, receive, send):
                if scope["type"] != "http":
                    return
                version = scope["http_version"]
                headers = dict(scope["headers"])
                path = scope["path"]
                if path == "/events":
                    last = int(headers.get(b"last-event-id", b"0"))
                    if last >= 3:
                        await start(send, 204, b"text/plain")
                        await send({"type": "http.response.body", "body": b""})
                        return
                    await start(send, 200, b"text/event-stream")
                    await send({"type": "http.response.body", "body": b"retry: 20\\n: heartbeat\\n\\n",
                                "more_body": True})
                    for n in range(last + 1, 4):
                        await asyncio.sleep(0.01)
                        event = 'id: %d\\ndata: {"n": %d, "version": "%s"}\\n\\n' % (n, n, version)
                        await send({"type": "http.response.body", "body": event.encode(), "more_body": True})
                    await send({"type": "http.response.body", "body": b""})
                elif path == "/held":
                    released.clear()
                    await start(send, 200, b"text/event-stream")
                    await send({"type": "http.response.body", "body": b"data: first\\n\\n", "more_body": True})
                    try:
                        # Long enough for a loaded machine (the suites under ThreadSanitizer):
                        # a client that never fetches /release still fails, and says so.
                        await asyncio.wait_for(released.wait(), 120)
                        last = b"data: second\\n\\n"
                    except asyncio.TimeoutError:
                        last = b"data: never released\\n\\n"
                    await send({"type": "http.response.body", "body": last})
                elif path == "/release":
                    released.set()
                    await start(send, 200, b"text/plain")
                    await send({"type": "http.response.body", "body": b"ok"})
                elif path == "/upload":
                    total = 0
                    while True:
                        message = await receive()
                        total += len(message.get("body", b""))
                        if not message.get("more_body"):
                            break
                    body = json.dumps({"version": version, "bytes": total,
                                       "length": headers.get(b"content-length", b"").decode(),
                                       "encoding": headers.get(b"transfer-encoding", b"").decode()}).encode()
                    await start(send, 200, b"application/json")
                    await send({"type": "http.response.body", "body": body})

            """

        struct Tick: Decodable, Equatable {
            var n: Int
            var version: String
        }

        struct Upload: Decodable, Equatable {
            var version: String
            var bytes: Int
            var length: String
            var encoding: String
        }

        final class HypercornAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
            let baseURL: String

            init(baseURL: String, transport: (any HTTPTransport)?) {
                self.baseURL = baseURL
                super.init(responseParser: JSONParser(), transport: transport)
            }
        }

        /// An API on Hypercorn over plain HTTP/1.1, on the test transport.
        private static func plain(_ fixture: TLSFixture) async throws -> HypercornAPI {
            let port = try await fixture.startHypercorn(app: app, tls: false)
            return HypercornAPI(baseURL: "http://127.0.0.1:\(port)", transport: TestTransport.make())
        }

        /// An API on Hypercorn over TLS, on CurlTransport trusting the fixture's authority.
        private static func secure(_ fixture: TLSFixture) async throws -> HypercornAPI {
            let port = try await fixture.startHypercorn(app: app, tls: true)
            let transport = try #require(CurlTransport(trustedCertificates: fixture.authority))
            return HypercornAPI(baseURL: "https://localhost:\(port)", transport: transport)
        }

        /// Reads the event source to its end and checks it: three events, one connection that
        /// ended, then a reconnection with `Last-Event-ID: 3` that got `204`.
        private func readEvents(from api: HypercornAPI, version: String) async throws {
            let source = api.events(route: api.get(endpoint: "/events"))
            var ticks: [Tick] = []
            for try await tick in source.values(of: Tick.self) { ticks.append(tick) }
            #expect(ticks == (1...3).map { Tick(n: $0, version: version) })
            #expect(source.connectionCount == 2)
            #expect(source.lastEventID == "3")
        }

        /// Checks that a piece arrives while the server holds the rest: the first event of
        /// `/held` is read before `/release` lets the server send the second.
        private func readHeld(from api: HypercornAPI) async throws {
            var events = api.stream(route: api.get(endpoint: "/held")).events.makeAsyncIterator()
            // Each value is read first, so that a failure shows what came instead.
            let first = try await events.next()?.data
            #expect(first == "first")
            let released: String = try await api.request(route: api.get(endpoint: "/release")).value
            #expect(released == "ok")
            let second = try await events.next()?.data
            #expect(second == "second")
            let end = try await events.next()
            #expect(end == nil)
        }

        /// Sends a body from a sequence with and without a length and checks what the server saw.
        private func upload(to api: HypercornAPI, version: String, chunked: Bool) async throws {
            let pieces: @Sendable () -> AsyncStream<Data> = {
                AsyncStream { continuation in
                    for _ in 0..<64 { continuation.yield(Data(repeating: 0x61, count: 4096)) }
                    continuation.finish()
                }
            }
            let sized: Upload = try await api.request(
                route: api.post(endpoint: "/upload"),
                parameters: StreamParameters(BodyStream(length: 262_144, makePieces: pieces))
            ).value
            #expect(sized == Upload(version: version, bytes: 262_144, length: "262144", encoding: ""))
            let unsized: Upload = try await api.request(
                route: api.post(endpoint: "/upload"), parameters: StreamParameters(BodyStream(pieces()))
            ).value
            #expect(unsized.version == version)
            #expect(unsized.bytes == 262_144)
            // HTTP/2 frames the body itself; HTTP/1.1 chunks it unless the transport spooled it
            // to learn its length (URLSessionTransport).
            #expect(unsized.encoding == (chunked ? "chunked" : ""))
            #expect(unsized.length == (chunked || version == "2" ? "" : "262144"))
        }

        @Test("over HTTP/1.1: events reconnect with Last-Event-ID, pieces come as sent, bodies stream")
        func http1() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let api = try await Self.plain(fixture)
            try await readEvents(from: api, version: "1.1")
            try await readHeld(from: api)
            try await upload(to: api, version: "1.1", chunked: !TestTransport.isURLSession)
        }

        @Test("over HTTP/2 with TLS: the same, on one connection")
        func http2() async throws {
            let fixture = try await TLSFixture.make()
            defer { fixture.stop() }
            let api = try await Self.secure(fixture)
            try await readEvents(from: api, version: "2")
            try await readHeld(from: api)
            try await upload(to: api, version: "2", chunked: false)
        }
    }
#endif
