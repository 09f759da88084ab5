import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// Streams with the rest of Osprey: token refresh, decoded events, split pieces, mocks.
@Suite("Streaming: with authentication, decoding and mocks")
struct StreamIntegrationTests {
    private static let eventStream = [LoopbackServer.HeaderField("Content-Type", "text/event-stream")]

    struct Token: Codable, Sendable, Equatable {
        var text: String
    }

    @Test("a 401 before the head refreshes the token once, then the stream flows")
    func refreshBeforeTheHead() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { request in
            guard request.value(forHeader: "Authorization") == "Bearer fresh" else {
                return .json("{}", status: 401)
            }
            return .streaming(headers: Self.eventStream) { body in body.write("data: {\"text\": \"hi\"}\n\n")
            }
        }
        let api = TestAPI(server)
        let refreshes = Locked(0)
        let authenticator = BearerAuthenticator(token: "stale") { _ in
            refreshes.withLock { $0 += 1 }
            return Promise(value: "fresh")
        }
        api.configuration.adapters = [authenticator]
        api.configuration.retryPolicy = authenticator.retryPolicy()
        var iterator = api.events(route: api.get(endpoint: "/feed")).values(of: Token.self)
            .makeAsyncIterator()
        #expect(try await iterator.next() == Token(text: "hi"))
        #expect(refreshes.withLock { $0 } == 1)
        #expect(
            server.requests.map { $0.value(forHeader: "Authorization") } == ["Bearer stale", "Bearer fresh"])
    }

    @Test("events cut at every byte by the server come out whole")
    func bytePieces() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let sample =
            "\u{FEFF}: hi\r\nevent: greet\r\ndata: héllo\r\ndata: wörld\r\nid: 1\r\n\r\ndata: second\r\r"
        server.route("/feed") { _ in
            .streaming(headers: Self.eventStream) { body in
                for byte in Data(sample.utf8) { body.write(Data([byte])) }
            }
        }
        let api = TestAPI(server)
        var events: [ServerSentEvent] = []
        for try await event in api.stream(route: api.get(endpoint: "/feed")).events { events.append(event) }
        #expect(
            events == [
                ServerSentEvent(id: "1", event: "greet", data: "héllo\nwörld"),
                ServerSentEvent(id: "1", data: "second"),
            ])
    }

    @Test("an event whose data is not the type asked for stops with parsingFailed")
    func undecodable() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            .streaming(headers: Self.eventStream) { body in body.write("data: not json\n\n") }
        }
        let api = TestAPI(server)
        await #expect(throws: APIError.self) {
            for try await _ in api.events(route: api.get(endpoint: "/feed")).values(of: Token.self) {}
        }
    }

    @Test("MockTransport replies with pieces and events over time; a stream gets each as it comes")
    func mockPieces() async throws {
        let mock = MockTransport()
        mock.route("GET", "/logs") { _ in .pieces([Data("a\nb".utf8), Data("\nc\n".utf8)], every: 0.01) }
        mock.route("GET", "/feed") { _ in
            .events(
                [ServerSentEvent(id: "1", data: "one"), ServerSentEvent(event: "add", data: "two")],
                every: 0.01)
        }
        let api = AbstractAPI(responseParser: JSONParser(), transport: mock)
        var lines: [String] = []
        for try await line in api.stream(route: .get("https://mock.test/logs")).lines { lines.append(line) }
        #expect(lines == ["a", "b", "c"])
        var events: [ServerSentEvent] = []
        for try await event in api.stream(route: .get("https://mock.test/feed")).events {
            events.append(event)
        }
        #expect(
            events == [
                ServerSentEvent(id: "1", data: "one"), ServerSentEvent(id: "1", event: "add", data: "two"),
            ])
        let whole: String = try await api.request(route: .get("https://mock.test/logs")).value
        #expect(whole == "a\nb\nc\n")
    }

    @Test("scripted streams and sources need no network")
    func scripted() async throws {
        var pieces: [Data] = []
        for try await piece in ResponseStream.scripted([Data("x".utf8), Data("y".utf8)]) {
            pieces.append(piece)
        }
        #expect(pieces == [Data("x".utf8), Data("y".utf8)])
        var events: [String] = []
        for try await event in ServerSentEvents.scripted([.init(data: "a"), .init(data: "b\nc")]) {
            events.append(event.data)
        }
        #expect(events == ["a", "b\nc"])
        var values: [Token] = []
        for try await value in DecodedEvents.scripted([Token(text: "t")]) { values.append(value) }
        #expect(values == [Token(text: "t")])
        let failing = ResponseStream.scripted([Data("x".utf8)], error: URLError(.networkConnectionLost))
        await #expect(throws: URLError.self) { for try await _ in failing {} }
    }

    @Test("an event's wire form reads back as the same event")
    func wireFormat() {
        let event = ServerSentEvent(id: "7", event: "update", data: "line one\nline two", retry: 100)
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array(event.wireFormat.utf8)) == [event])
    }

    @Test("CR, CRLF and a prepended mark cannot smuggle fields into an event's wire form")
    func wireFormatBreaks() {
        // "\r\n" is one Character, and U+070F joins the next scalar into its own: split by
        // characters, both would let a line break through inside one `data:` line.
        let event = ServerSentEvent(
            id: "1\nevent: forged", event: "note\r\nid: 9",
            data: "a\r\nid: 66\rb\u{070F}\nretry: 1\n\u{070F}\r\nc", retry: nil)
        var parser = ServerSentEventParser()
        let events = parser.feed(Array(event.wireFormat.utf8))
        #expect(events.count == 1)
        #expect(events.first?.id == "1event: forged")
        #expect(events.first?.event == "noteid: 9")
        #expect(events.first?.data == "a\nid: 66\nb\u{070F}\nretry: 1\n\u{070F}\nc")
        #expect(events.first?.retry == nil)
    }
}
