import Foundation
import Osprey
import OspreyTesting
import Testing

/// A model API that streams: a log tail, a change feed and a model's tokens.
enum Streaming {
    struct Token: Codable, Sendable, Equatable {
        var text: String
    }

    struct Prompt: Codable, Sendable, Equatable {
        var text: String
    }

    @API
    @Mock
    @Headers(["X-Client": "tests"])
    protocol Assistant {
        @GET("/logs/:name")
        func logs(name: String, since: Query<Int>) -> ResponseStream

        @GET("/feed")
        func feed() async throws -> ServerSentEvents

        @GET("/changes")
        func changes() -> ServerSentEvents

        @POST("/complete")
        func complete(prompt: Body<Prompt>) throws -> DecodedEvents<Token>
    }
}

/// `@API` requirements that return streams send their request through the pipeline when read;
/// `@Mock` hands back scripted streams, and streams that fail without a handler.
@Suite("Declarative stream results")
struct DeclarativeStreamTests {
    private static let eventStream = [LoopbackServer.HeaderField("Content-Type", "text/event-stream")]

    private func makeStreamingServer() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/logs/*name") { _ in
            .streaming { body in
                body.write("first\n")
                body.write("second\n")
            }
        }
        server.route("/feed") { _ in
            .streaming(headers: Self.eventStream) { body in body.write("id: 7\ndata: hello\n\n") }
        }
        server.route("/complete") { _ in
            .streaming(headers: Self.eventStream) { body in
                body.write("data: {\"text\": \"Hel\"}\n\n")
                body.write("data: {\"text\": \"lo\"}\n\n")
            }
        }
        return server
    }

    @Test("a ResponseStream requirement builds its request from the arguments and streams the body")
    func responseStream() async throws {
        let server = try makeStreamingServer()
        defer { server.stop() }
        let api = Streaming.AssistantAPI(provider: server.provider)
        // The request starts at once (as `stream(route:)` documents); the body waits for the
        // reader in the stream's buffer.
        let stream = api.logs(name: "app", since: 5)
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }
        #expect(lines == ["first", "second"])
        let request = try #require(server.onlyRequest)
        #expect(request.path == "/logs/app")
        #expect(request.query == "since=5")
        #expect(request.value(forHeader: "X-Client") == "tests")
    }

    @Test("a ServerSentEvents requirement is an event source that stops on 204")
    func serverSentEvents() async throws {
        let server = try makeStreamingServer()
        defer { server.stop() }
        let api = Streaming.AssistantAPI(provider: server.provider)
        var iterator = try await api.feed().makeAsyncIterator()
        #expect(try await iterator.next() == ServerSentEvent(id: "7", data: "hello"))
        #expect(server.requests.count == 1)
    }

    @Test("a DecodedEvents requirement posts its body and decodes each event's data")
    func decodedEvents() async throws {
        let server = try makeStreamingServer()
        defer { server.stop() }
        let api = Streaming.AssistantAPI(provider: server.provider)
        var tokens: [Streaming.Token] = []
        var iterator = try api.complete(prompt: Streaming.Prompt(text: "hi")).makeAsyncIterator()
        for _ in 0..<2 { if let token = try await iterator.next() { tokens.append(token) } }
        #expect(tokens.map(\.text) == ["Hel", "lo"])
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(try server.lastJSONBody()?["text"] as? String == "hi")
    }

    @Test("@Mock hands back the scripted streams its handlers return")
    func mocked() async throws {
        let mock = Streaming.AssistantMock()
        mock.mockLogs { name, since in .scripted([Data("\(name) from \(since)\n".utf8)]) }
        mock.mockFeed { .scripted([ServerSentEvent(data: "one"), ServerSentEvent(data: "two")]) }
        mock.mockComplete { prompt in .scripted([Streaming.Token(text: prompt.text + "!")]) }
        var lines: [String] = []
        for try await line in mock.logs(name: "app", since: 3).lines { lines.append(line) }
        #expect(lines == ["app from 3"])
        var data: [String] = []
        for try await event in try await mock.feed() { data.append(event.data) }
        #expect(data == ["one", "two"])
        var tokens: [Streaming.Token] = []
        for try await token in try mock.complete(prompt: Streaming.Prompt(text: "hi")) {
            tokens.append(token)
        }
        #expect(tokens == [Streaming.Token(text: "hi!")])
    }

    @Test("a stream requirement without a handler fails with notMocked when read or called")
    func unmocked() async throws {
        let mock = Streaming.AssistantMock()
        // `logs` cannot throw: its stream fails when read.
        await #expect(throws: MockError.notMocked("logs(name:since:)")) {
            for try await _ in mock.logs(name: "app", since: 1) {}
        }
        await #expect(throws: MockError.notMocked("changes()")) {
            for try await _ in mock.changes() {}
        }
        await #expect(throws: MockError.notMocked("feed()")) { _ = try await mock.feed() }
        #expect(throws: MockError.notMocked("complete(prompt:)")) {
            _ = try mock.complete(prompt: Streaming.Prompt(text: "hi"))
        }
    }

    @Test("a scripted event source or decoded sequence can end with an error")
    func scriptedFailures() async throws {
        struct Gone: Error, Equatable {}
        var seen: [String] = []
        await #expect(throws: Gone.self) {
            for try await event in ServerSentEvents.scripted([ServerSentEvent(data: "a")], error: Gone()) {
                seen.append(event.data)
            }
        }
        #expect(seen == ["a"])
        var tokens: [Streaming.Token] = []
        await #expect(throws: Gone.self) {
            for try await token in DecodedEvents.scripted([Streaming.Token(text: "t")], error: Gone()) {
                tokens.append(token)
            }
        }
        #expect(tokens == [Streaming.Token(text: "t")])
    }
}
