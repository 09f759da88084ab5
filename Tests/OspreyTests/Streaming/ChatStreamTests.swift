import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// A streaming chat client as a new user writes it against a model API's `text/event-stream`:
/// a POST with a prompt, JSON tokens, a `data: [DONE]` at the end.
@Suite("Streaming: a chat client's event stream (POST, JSON tokens, [DONE])")
struct ChatStreamTests {
    static let eventStream = [LoopbackServer.HeaderField("Content-Type", "text/event-stream")]

    struct Prompt: Encodable, Sendable {
        var text: String
    }

    struct Token: Decodable, Sendable, Equatable {
        var text: String
        var finishReason: String?
    }

    /// `/chat` answers each POST with `tokens`, then `[DONE]` when `done`, and then holds the
    /// connection open for `holdAfter` seconds (a server that does not close at once).
    static func chatServer(
        tokens: [String] = ["Hel", "lo"], done: Bool = true, holdAfter: TimeInterval = 0, drops: Bool = false
    ) throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/chat") { _ in
            let response = LoopbackServer.Response.streaming(headers: Self.eventStream) { body in
                for (index, token) in tokens.enumerated() {
                    let finish = index == tokens.count - 1 ? #""stop""# : "null"
                    body.write("data: {\"text\": \"\(token)\", \"finish_reason\": \(finish)}\n\n")
                }
                if done { body.write("data: [DONE]\n\n") }
                if holdAfter > 0 { body.pause(for: holdAfter) }
            }
            return drops ? response.closingAfterStream() : response
        }
        return server
    }

    /// The README's "Streaming a model's answer" snippet, with the tokens collected, not printed.
    @Test("values(of:endingAt:) ends at [DONE], closes the connection and sends the prompt once")
    func endsAtSentinel() async throws {
        // The server would hold the connection for an hour after [DONE].
        let server = try Self.chatServer(holdAfter: 3600)
        defer { server.stop() }
        let api = TestAPI(server, parser: JSONParser(keyMapping: .snakeCase))
        let answer = api.events(
            route: api.post(endpoint: "/chat"), parameters: JSONParameters(Prompt(text: "Hi")))
        var tokens: [Token] = []
        for try await token in answer.values(of: Token.self, endingAt: "[DONE]") { tokens.append(token) }
        #expect(tokens.map(\.text) == ["Hel", "lo"])
        // The API's decoder (snake case) read `finish_reason`.
        #expect(tokens.last?.finishReason == "stop")
        #expect(await server.waitUntilNoOpenConnections())
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.method == "POST")
        #expect(server.requests.first?.bodyText == #"{"text":"Hi"}"#)
    }

    /// A POST answer from a source that would reconnect at once, if it reconnected.
    static func quickAnswer(_ api: TestAPI) -> ServerSentEvents {
        api.events(
            route: api.post(endpoint: "/chat"), parameters: JSONParameters(Prompt(text: "Hi")),
            reconnection: .init(initialDelay: 0, minimumDelay: 0, maximumDelay: 0))
    }

    @Test("a POST source ends with its connection: the prompt is never sent again")
    func postIsNotResent() async throws {
        let server = try Self.chatServer(done: false)
        defer { server.stop() }
        let answer = Self.quickAnswer(TestAPI(server))
        var texts: [String] = []
        for try await token in answer.values(of: Token.self) { texts.append(token.text) }
        #expect(texts == ["Hel", "lo"])
        // The sequence ended, so nothing can reconnect any more.
        #expect(answer.connectionCount == 1)
        #expect(server.requests.count == 1)
    }

    @Test("a POST whose connection drops fails with the transport error instead of re-sending")
    func droppedPostFails() async throws {
        let server = try Self.chatServer(done: false, drops: true)
        defer { server.stop() }
        let answer = Self.quickAnswer(TestAPI(server))
        var texts: [String] = []
        do {
            for try await token in answer.values(of: Token.self) { texts.append(token.text) }
            Issue.record("a dropped connection must fail the sequence")
        } catch let error as APIError {
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
        }
        #expect(texts == ["Hel", "lo"])
        #expect(server.requests.count == 1)
    }

    @Test(
        "a POST is sent again only when the policy allows it, or it carries an Idempotency-Key",
        arguments: [true, false])
    func resendWhenAllowed(byPolicy: Bool) async throws {
        let server = try Self.chatServer(done: false)
        defer { server.stop() }
        let api = TestAPI(server)
        let quick = ServerSentEvents.Reconnection(
            initialDelay: 0, minimumDelay: 0, maximumDelay: 0, maximumAttempts: nil,
            resendsNonIdempotentRequests: byPolicy)
        let parameters = JSONParameters(Prompt(text: "Hi"))
        if !byPolicy { parameters.headers["Idempotency-Key"] = "prompt-1" }
        let answer = api.events(
            route: api.post(endpoint: "/chat"), parameters: parameters, reconnection: quick)
        var texts: [String] = []
        for try await token in answer.values(of: Token.self) {
            texts.append(token.text)
            if texts.count == 4 { break }
        }
        answer.cancel()
        #expect(texts == ["Hel", "lo", "Hel", "lo"])
        #expect(server.requests.count == 2)
    }

    @Test("an event's decode() uses the API's decoder; decode(using:) the one given")
    func decodeWithTheAPIsDecoder() async throws {
        let server = try Self.chatServer()
        defer { server.stop() }
        let api = TestAPI(server, parser: JSONParser(keyMapping: .snakeCase))
        var reasons: [String?] = []
        for try await event in api.stream(route: api.post(endpoint: "/chat")).events
        where event.data != "[DONE]" {
            let token: Token = try event.decode()
            reasons.append(token.finishReason)
        }
        #expect(reasons == [nil, "stop"])
        // The source's events carry it too.
        let source = api.events(route: api.post(endpoint: "/chat"))
        var iterator = source.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        source.cancel()
        #expect(try event.decode(Token.self).text == "Hel")
        // A plain decoder given explicitly does not map keys, and an event made by hand has none.
        let lastEvent = ServerSentEvent(data: #"{"text": "x", "finish_reason": "stop"}"#)
        #expect(try lastEvent.decode(Token.self).finishReason == nil)
        #expect(try lastEvent.decode(Token.self, using: JSONDecoder()).finishReason == nil)
        // Equality ignores the decoder.
        #expect(event == ServerSentEvent(data: event.data))
    }

    @Test("a stream accepts anything, an event source text/event-stream, a caller's Accept wins")
    func acceptHeaders() async throws {
        let server = try Self.chatServer()
        defer { server.stop() }
        let api = TestAPI(server)
        for try await _ in api.stream(route: api.post(endpoint: "/chat")) {}
        let parameters = URLParameters()
        parameters.headers["Accept"] = "application/x-ndjson"
        for try await _ in api.stream(route: api.post(endpoint: "/chat"), parameters: parameters) {}
        for try await _ in api.events(route: api.post(endpoint: "/chat")).values(
            of: Token.self, endingAt: "[DONE]")
        {}
        let accepts = server.requests.map { $0.value(forHeader: "Accept") }
        #expect(accepts == ["*/*", "application/x-ndjson", "text/event-stream"])
    }

    @Test("an event that is not the type asked for fails naming the method and URL")
    func parsingErrorNamesTheRequest() async throws {
        let server = try Self.chatServer()
        defer { server.stop() }
        let api = TestAPI(server)
        do {
            // Without a sentinel, [DONE] is not JSON.
            for try await _ in api.events(route: api.post(endpoint: "/chat")).values(of: Token.self) {}
            Issue.record("[DONE] must not decode as a Token")
        } catch let error as APIError {
            guard case .parsingFailed = error else {
                Issue.record("expected parsingFailed, got \(error)")
                return
            }
            #expect(
                error.description.contains("POST \(server.baseURL(host: "127.0.0.1").absoluteString)/chat"))
            #expect(error.statusCode == 200)
            #expect(error.data == Data("[DONE]".utf8))
        }
    }
}
