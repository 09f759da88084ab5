import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// The reconnecting event source against the loopback server, on the test transport.
@Suite("Streaming: ServerSentEvents reconnects, and stops when it must")
struct ServerSentEventsTests {
    static let eventStream = [LoopbackServer.HeaderField("Content-Type", "text/event-stream")]

    /// No waiting between reconnections (not even the floor): the tests count connections, not
    /// seconds.
    static let quick = ServerSentEvents.Reconnection(initialDelay: 0, minimumDelay: 0, maximumDelay: 0)

    @Test("a dropped connection is reconnected with Last-Event-ID, after the server's retry delay")
    func reconnects() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let connections = Locked(0)
        server.route("/feed") { request in
            let number = connections.withLock {
                $0 += 1
                return $0
            }
            if number == 1 {
                return LoopbackServer.Response.streaming(headers: Self.eventStream) { body in
                    body.write("retry: 50\nid: 1\ndata: one\n\nid: 2\nevent: add\ndata: two\n\n")
                }.closingAfterStream()
            }
            let last = request.value(forHeader: "Last-Event-ID") ?? "none"
            return .streaming(headers: Self.eventStream) { body in
                body.write("data: resumed after \(last)\n\n")
            }
        }
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"))
        var events: [ServerSentEvent] = []
        for try await event in source {
            events.append(event)
            if events.count == 3 { break }
        }
        #expect(events.map(\.data) == ["one", "two", "resumed after 2"])
        #expect(events[1].event == "add")
        #expect(events[0].retry == 50)
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.value(forHeader: "Accept") == "text/event-stream" })
        #expect(server.requests.first?.value(forHeader: "Last-Event-ID") == nil)
        source.cancel()
    }

    @Test("the server's retry delay is the wait before reconnecting, with jitter and doubling")
    func delays() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            LoopbackServer.Response.streaming(headers: Self.eventStream) { body in
                body.write("retry: 200\n\n")
            }
            .closingAfterStream()
        }
        let api = TestAPI(server)
        let waits = Locked<[ClosedRange<Double>]>([])
        let source = ServerSentEvents(
            reconnection: .init(initialDelay: 3, minimumDelay: 0.1, maximumDelay: 0.5, maximumAttempts: 3),
            defaultQueue: api.responseQueue,
            random: { range in
                waits.withLock { $0.append(range) }
                return 0
            },
            open: { _ in api.stream(route: api.get(endpoint: "/feed")) })
        var iterator = source.makeAsyncIterator()
        await #expect(throws: (any Error).self) { _ = try await iterator.next() }
        // 0.2 s, doubled for each quiet reconnection, up to 0.5 s; each wait half to all of it.
        #expect(waits.withLock { $0 } == [0.1...0.2, 0.2...0.4, 0.25...0.5])
        #expect(server.requests.count == 4)
    }

    @Test("after as many clean ends in a row without an event as allowed, the sequence ends")
    func quietEnds() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            LoopbackServer.Response.streaming(headers: Self.eventStream) { body in body.write(": nothing\n") }
        }
        let api = TestAPI(server)
        var count = 0
        let source = api.events(
            route: api.get(endpoint: "/feed"),
            reconnection: .init(initialDelay: 0, minimumDelay: 0, maximumDelay: 0, maximumAttempts: 2))
        for try await _ in source { count += 1 }
        #expect(count == 0)
        #expect(source.connectionCount == 3)
    }

    @Test("a 204 stops the source for good, without an error")
    func noContent() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in LoopbackServer.Response(status: 204) }
        let api = TestAPI(server)
        var count = 0
        for try await _ in api.events(route: api.get(endpoint: "/feed"), reconnection: Self.quick) {
            count += 1
        }
        #expect(count == 0)
        #expect(server.requests.count == 1)
    }

    @Test("another Content-Type stops the source with NotAnEventStream")
    func wrongType() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in .json("{}") }
        let api = TestAPI(server)
        do {
            for try await _ in api.events(route: api.get(endpoint: "/feed"), reconnection: Self.quick) {}
            Issue.record("expected an error")
        } catch APIError.parsingFailed(let underlying, _) {
            #expect((underlying as? NotAnEventStream)?.contentType == "application/json")
        }
        #expect(server.requests.count == 1)
    }

    @Test("a failing status stops the source with the API's error; it does not reconnect")
    func failingStatus() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in .json(#"{"code": 1, "message": "gone"}"#, status: 410) }
        let api = TestAPI(server, parser: MessageParser())
        do {
            for try await _ in api.events(route: api.get(endpoint: "/feed"), reconnection: Self.quick) {}
            Issue.record("expected an error")
        } catch APIError.unacceptableStatus(let context, let serverError) {
            #expect(context.response?.statusCode == 410)
            #expect(serverError as? ServerMessage == ServerMessage(code: 1, message: "gone"))
        }
        #expect(server.requests.count == 1)
    }

    @Test("heartbeat comments keep a quiet stream inside its idle timeout")
    func heartbeats() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            .streaming(headers: Self.eventStream) { body in
                // A heartbeat every 0.1 s for 30 s (on this clock, however slowly the loop runs)
                // against a 20 s idle timeout: the stream outlasts the timeout by half, and only
                // 20 s without a heartbeat delivered fails it. 5 s against 7.5 s of heartbeats
                // failed on a CI machine that ran the suites four times slower than this one, and
                // 10 s against 15 s here with eight busy loops beside the suites: FoundationNetworking
                // then delivered nothing for over 10 s while the server wrote every 0.1 s.
                let started = DispatchTime.now().uptimeNanoseconds
                while DispatchTime.now().uptimeNanoseconds - started < 30_000_000_000 {
                    body.write(": ping\n")
                    body.pause(for: 0.1)
                }
                body.write("data: {\"n\": 1}\n\n")
            }
        }
        let api = TestAPI(server)
        struct Payload: Decodable, Equatable { var n: Int }
        var iterator = api.events(
            route: api.get(endpoint: "/feed"), parameters: URLParameters(timeout: 20),
            reconnection: Self.quick
        ).makeAsyncIterator()
        let event = try await iterator.next()
        #expect(try event?.decode(Payload.self) == Payload(n: 1))
        #expect(server.requests.count == 1)
    }

    @Test("cancel ends the reader and closes the connection")
    func cancel() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            .streaming(headers: Self.eventStream) { body in
                var index = 0
                while body.write("data: \(index)\n\n") {
                    index += 1
                    body.pause(for: 0.05)
                }
            }
        }
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"), reconnection: Self.quick)
        var iterator = source.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "0")
        source.cancel()
        await #expect(throws: CancellationError.self) {
            while try await iterator.next() != nil {}
        }
        #expect(await server.waitUntilNoOpenConnections())
    }
}
