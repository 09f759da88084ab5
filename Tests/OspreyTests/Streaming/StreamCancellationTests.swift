import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// One rule for a cancelled stream, however it is read: the transfer stops, the reading task
/// throws `CancellationError`, promises settle as cancelled (so `onError` does not run), and the
/// end of a chain built on a handler's promise carries its cancellation up to the stream.
@Suite("Streaming: cancelling a stream, a handler chain or the reading task")
struct StreamCancellationTests {
    static let eventStream = [LoopbackServer.HeaderField("Content-Type", "text/event-stream")]

    /// `/feed` sends an event every 20 ms until the client hangs up.
    static func feedServer() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/feed") { _ in
            .streaming(headers: Self.eventStream) { body in
                var index = 0
                while body.write("data: \(index)\n\n") {
                    index += 1
                    guard body.pause(for: 0.02) else { return }
                }
            }
        }
        return server
    }

    /// What a handler chain reported, in order.
    final class Journal: Sendable {
        private let entries = Locked<[String]>([])
        private let firstEvent = Locked<CheckedContinuation<Void, Never>?>(nil)
        private let sawEvent = Locked(false)

        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }

        /// Called by the event handler: wakes `waitForAnEvent` once.
        func event() {
            let waiting = sawEvent.withLock { seen -> Bool in
                defer { seen = true }
                return !seen
            }
            if waiting { firstEvent.withLock { $0.take() }?.resume() }
        }

        func waitForAnEvent() async {
            await withCheckedContinuation { continuation in
                let seen = sawEvent.withLock { $0 }
                if seen { return continuation.resume() }
                firstEvent.withLock { $0 = continuation }
                // The event may have come between the two looks.
                if sawEvent.withLock({ $0 }) { firstEvent.withLock { $0.take() }?.resume() }
            }
        }
    }

    @Test(
        "cancelling the end of an onEvent chain stops the stream; onError does not run",
        arguments: [false, true])
    func responseStreamChain(withFinally: Bool) async throws {
        let server = try Self.feedServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/feed"))
        let journal = Journal()
        var chain = stream.onEvent { _ in journal.event() }
            .onError { error in journal.add("error: \(error)") }
            .onCancel { journal.add("cancelled") }
        if withFinally { chain = chain.finally { journal.add("finally") } }
        await journal.waitForAnEvent()
        chain.cancel()
        _ = await chain.result
        let closed = await server.waitUntilNoOpenConnections()
        #expect(closed)
        // Only once it stopped: an endless stream that did not would never complete.
        if closed { await #expect(throws: CancellationError.self) { try await stream.completion.value } }
        #expect(!journal.all.contains { $0.hasPrefix("error") })
    }

    @Test(
        "cancelling the end of a source's onEvent chain closes its connection; onError does not run",
        arguments: [false, true])
    func sourceChain(withFinally: Bool) async throws {
        let server = try Self.feedServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"))
        let journal = Journal()
        var chain = source.onEvent { _ in journal.event() }
            .onError { error in journal.add("error: \(error)") }
        if withFinally { chain = chain.finally { journal.add("finally") } }
        await journal.waitForAnEvent()
        chain.cancel()
        _ = await chain.result
        #expect(await server.waitUntilNoOpenConnections())
        #expect(!journal.all.contains { $0.hasPrefix("error") })
        #expect(source.connectionCount == 1)
    }

    @Test("stream.cancel() settles the handler's promise as cancelled, not failed")
    func cancelWhileHandled() async throws {
        let server = try Self.feedServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/feed"))
        let journal = Journal()
        let reading = stream.onLine { _ in journal.event() }
        let end = reading.onError { error in journal.add("error: \(error)") }
        await journal.waitForAnEvent()
        stream.cancel()
        _ = await end.result
        #expect(reading.isCancelled)
        #expect(stream.completion.isCancelled)
        #expect(journal.all.isEmpty)
        #expect(await server.waitUntilNoOpenConnections())
    }

    @Test("source.cancel() settles onEvent's promise as cancelled, not failed")
    func sourceCancelWhileHandled() async throws {
        let server = try Self.feedServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"))
        let journal = Journal()
        let reading = source.onEvent { _ in journal.event() }
        let end = reading.onError { error in journal.add("error: \(error)") }
        await journal.waitForAnEvent()
        source.cancel()
        _ = await end.result
        #expect(reading.isCancelled)
        #expect(journal.all.isEmpty)
        #expect(await server.waitUntilNoOpenConnections())
    }

    @Test("cancelling the task that reads a stream throws CancellationError there and stops it")
    func cancelReadingTask() async throws {
        let server = try Self.feedServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let stream = api.stream(route: api.get(endpoint: "/feed"))
        let journal = Journal()
        let reader = Task {
            for try await _ in stream.events { journal.event() }
        }
        await journal.waitForAnEvent()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(stream.completion.isCancelled)
        #expect(await server.waitUntilNoOpenConnections())
    }

    @Test("cancelling the task that reads a source throws CancellationError there and closes it")
    func cancelSourceTask() async throws {
        let server = try Self.feedServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let source = api.events(route: api.get(endpoint: "/feed"))
        let journal = Journal()
        let reader = Task {
            for try await _ in source { journal.event() }
        }
        await journal.waitForAnEvent()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(await server.waitUntilNoOpenConnections())
        #expect(source.connectionCount == 1)
    }
}

extension Optional {
    /// The value, leaving nil behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
