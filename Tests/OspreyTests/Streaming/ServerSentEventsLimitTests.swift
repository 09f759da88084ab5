import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// What a server cannot make a reconnecting event source do: reconnect in a loop, grow an event
/// without bound, or lose the last event ID on a reconnection.
@Suite("Streaming: ServerSentEvents holds its limits against the server")
struct ServerSentEventsLimitTests {
    private static let eventStream = ServerSentEventsTests.eventStream

    @Test("a server's retry: 0 does not make reconnections immediate: each waits the minimum delay")
    func retryZero() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let arrivals = Locked<[UInt64]>([])
        server.route("/feed") { _ in
            let number = arrivals.withLock {
                $0.append(DispatchTime.now().uptimeNanoseconds)
                return $0.count
            }
            return LoopbackServer.Response.streaming(headers: Self.eventStream) { body in
                body.write("retry: 0\ndata: \(number)\n\n")
            }
            .closingAfterStream()
        }
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"))
        var events: [String] = []
        for try await event in source {
            events.append(event.data)
            if events.count == 4 { break }
        }
        source.cancel()
        #expect(events == ["1", "2", "3", "4"])
        #expect(source.connectionCount == 4)
        // Each request came after the previous one had been answered and the source had waited:
        // a lower bound only, which a slow machine cannot break. (Nine tenths of the floor, in
        // case a timer fires a hair early; without the floor the gaps are a few milliseconds.)
        let floor = UInt64(ServerSentEvents.Reconnection.defaultMinimumDelay * 0.9 * 1e9)
        let times = arrivals.withLock { $0 }
        #expect(times.count == 4)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= floor, "\(Double(later - earlier) / 1e9) s between two connections")
        }
    }

    @Test("once the server is gone after a retry: 0, the attempts back off from the floor")
    func serverGone() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            LoopbackServer.Response.streaming(headers: Self.eventStream) { body in
                body.write("retry: 0\ndata: last\n\n")
            }
            .closingAfterStream()
        }
        let api = TestAPI(server)
        let waits = Locked<[ClosedRange<Double>]>([])
        let source = ServerSentEvents(
            reconnection: .init(maximumAttempts: 3), defaultQueue: api.responseQueue,
            random: { range in
                waits.withLock { $0.append(range) }
                return range.lowerBound
            },
            open: { _ in api.stream(route: api.get(endpoint: "/feed")) })
        var iterator = source.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "last")
        server.stop()
        let started = DispatchTime.now().uptimeNanoseconds
        await #expect(throws: APIError.self) { _ = try await iterator.next() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        // The floor (0.5 s) doubled per failed attempt, each wait half to all of it, never below
        // the floor; without it every wait is zero and the attempts only stop at the limit.
        #expect(waits.withLock { $0 } == [0.5...0.5, 0.5...1, 1...2])
        #expect(source.connectionCount == 4)
        #expect(elapsed >= 0.9 * 2, "\(elapsed) s for three waits of at least 0.5, 0.5 and 1 s")
    }

    /// A server whose `/feed` writes `body(n)` on its n-th connection (from 1), then closes.
    private static func feed(_ body: @escaping @Sendable (Int) -> String) throws -> LoopbackServer {
        let server = try LoopbackServer()
        let connections = Locked(0)
        server.route("/feed") { _ in
            let number = connections.withLock {
                $0 += 1
                return $0
            }
            return LoopbackServer.Response.streaming(headers: Self.eventStream) { writer in
                writer.write(body(number))
            }
            .closingAfterStream()
        }
        return server
    }

    /// The first `count` events of `server`'s `/feed` through a quickly reconnecting source,
    /// which is cancelled then.
    private static func firstEvents(_ count: Int, from server: LoopbackServer) async throws
        -> (events: [ServerSentEvent], source: ServerSentEvents)
    {
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"), reconnection: ServerSentEventsTests.quick)
        var events: [ServerSentEvent] = []
        for try await event in source {
            events.append(event)
            if events.count == count { break }
        }
        source.cancel()
        return (events, source)
    }

    @Test("the last event ID outlives a reconnection until an id: field changes it")
    func lastEventIDPersists() async throws {
        let server = try Self.feed { number in
            number == 1 ? "id: 7\ndata: first\n\n" : "data: then \(number)\n\n"
        }
        defer { server.stop() }
        let (events, source) = try await Self.firstEvents(3, from: server)
        #expect(events.map(\.data) == ["first", "then 2", "then 3"])
        // As the standard's MessageEvent.lastEventId: the stream's last event ID buffer.
        #expect(events.map(\.id) == ["7", "7", "7"])
        #expect(server.requests.map { $0.value(forHeader: "Last-Event-ID") } == [nil, "7", "7"])
        #expect(source.lastEventID == "7")
    }

    @Test("an id in a block without data moves the last event ID; a block cut before its blank line does not")
    func idOnlyBlocks() async throws {
        let server = try Self.feed { number in
            number == 1 ? "id: 7\ndata: first\n\nid: 42\n\nid: 99\ndata: cut" : "data: second\n\n"
        }
        defer { server.stop() }
        let (events, _) = try await Self.firstEvents(2, from: server)
        #expect(events.map(\.data) == ["first", "second"])
        #expect(events.map(\.id) == ["7", "42"])
        #expect(server.requests.map { $0.value(forHeader: "Last-Event-ID") } == [nil, "42"])
    }

    @Test("an event larger than the limit fails the source, which does not reconnect")
    func eventTooLarge() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let limit = ServerSentEventParser.maximumEventBytes
        server.route("/feed") { _ in
            LoopbackServer.Response.streaming(headers: Self.eventStream) { body in
                guard body.write("data: small\n\n") else { return }
                // Four times the limit in lines well under the line cap, then the blank line that
                // would dispatch it all as one event.
                let line = "data: " + String(repeating: "a", count: 64 * 1024) + "\n"
                var written = 0
                while written < 4 * limit, body.write(line) { written += line.utf8.count }
                body.write("\n")
            }
            .closingAfterStream()
        }
        let api = TestAPI(server)
        // Sizes, not the events: a failure must not print megabytes.
        var sizes: [Int] = []
        do {
            for try await event in api.events(
                route: api.get(endpoint: "/feed"), reconnection: ServerSentEventsTests.quick)
            {
                sizes.append(event.data.utf8.count)
                // Without a limit the big event comes whole, and again on every reconnection.
                if sizes.count == 2 { break }
            }
            Issue.record("expected an error; got events of \(sizes) bytes")
        } catch APIError.parsingFailed(let underlying, let context) {
            #expect((underlying as? ServerSentEventTooLarge)?.limit == limit)
            #expect(context.response?.statusCode == 200)
        }
        #expect(sizes == [5])
        #expect(server.requests.count == 1)
        // The source stopped the transfer rather than reading the rest.
        #expect(await server.waitUntilNoOpenConnections())
    }

    @Test("a stream's events (without reconnection) fail on an event larger than the limit")
    func streamEventTooLarge() async throws {
        let line = Data(("data: " + String(repeating: "b", count: 64 * 1024) + "\n").utf8)
        let count = ServerSentEventParser.maximumEventBytes / line.count + 2
        let stream = ResponseStream.scripted(
            [Data("data: small\n\n".utf8)] + Array(repeating: line, count: count) + [Data("\n".utf8)],
            headers: ["Content-Type": "text/event-stream"])
        var iterator = stream.events.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "small")
        await #expect {
            let size = try await iterator.next()?.data.utf8.count
            Issue.record("expected an error; got an event of \(size ?? 0) bytes")
        } throws: { error in
            guard case APIError.parsingFailed(let underlying, _) = error else { return false }
            return underlying is ServerSentEventTooLarge
        }
    }
}
