import Foundation
import Promises
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A socket over a message task (URLSession's `URLSessionWebSocketTask` on Apple platforms),
/// played by a scripted task: the same ``WebSocket`` contract as over a connection the client
/// frames itself, where the task lets it be kept.
@Suite("WebSocket: over a message task (URLSessionWebSocketTask's side, scripted)", .timeLimit(.minutes(10)))
struct MessageTaskConnectionTests {
    private typealias Event = ScriptedMessageTask.Event

    private static func open(
        _ task: ScriptedMessageTask, options: WebSocketOptions = WebSocketOptions(),
        over adapter: MessageTaskConnection? = nil
    ) -> WebSocket {
        let connection = WebSocketConnection(
            connection: adapter ?? MessageTaskConnection(task: task), options: options, defaultQueue: nil)
        let url = URL(string: "wss://chat.example.com/socket")!
        let response = HTTPURLResponse(url: url, statusCode: 101, httpVersion: "HTTP/1.1", headerFields: [:])!
        let socket = WebSocket(
            connection: connection, response: response,
            agreement: WebSocketHandshake.Agreement(subprotocol: nil, extensions: []), decoder: nil,
            responseQueue: .global())
        connection.start()
        return socket
    }

    @Test("messages both ways, in order: what the task receives is read, what is sent reaches the task")
    func messages() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        let socket = Self.open(task)
        task.serverSends(.text("hello"))
        task.serverSends(.binary(Data([0, 1, 255])))
        task.serverSends(.text(String(repeating: "é", count: 10_000)))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        #expect(try await iterator.next() == .binary(Data([0, 1, 255])))
        #expect(try await iterator.next() == .text(String(repeating: "é", count: 10_000)))
        try await socket.send(text: "one").value
        try await socket.send(data: Data([9])).value
        #expect(
            await events.next(where: { if case .sent = $0 { true } else { false } }) == .sent(.text("one")))
        #expect(await events.next() == .sent(.binary(Data([9]))))
        socket.cancel()
    }

    @Test("fragments the socket writes reach the task as one message")
    func fragmentsJoined() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        var options = WebSocketOptions()
        options.maximumOutgoingFrameSize = 3
        let socket = Self.open(task, options: options)
        try await socket.send(text: "fragmented message").value
        #expect(
            await events.next(where: { if case .sent = $0 { true } else { false } })
                == .sent(.text("fragmented message")))
        socket.cancel()
    }

    @Test("the server's close ends the socket cleanly with its code and reason; nothing more is sent")
    func serverCloses() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        let socket = Self.open(task)
        task.serverSends(.text("last"))
        task.serverCloses(code: .goingAway, reason: "restarting")
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == [.text("last")])
        let close = try await socket.closed.value
        #expect(close == WebSocketClose(code: .goingAway, reason: "restarting", initiator: .server))
        // The task answered the close itself: the socket sent none, and closed the task.
        var seen: [Event] = []
        while let event = await events.next() {
            seen.append(event)
            if event == .abort { break }
        }
        #expect(!seen.contains { if case .close = $0 { true } else { false } }, "\(seen)")
        #expect(await socket.send(text: "late").result.failure as? WebSocketError == .closed)
    }

    @Test("the client's close goes to the task; the server's answer ends the socket as the client's close")
    func clientCloses() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        let socket = Self.open(task)
        let closed = socket.close(code: .normal, reason: "done")
        #expect(
            await events.next(where: { if case .close = $0 { true } else { false } })
                == .close(.normal, reason: "done"))
        task.serverCloses(code: .normal, reason: "")
        #expect(try await closed.value == WebSocketClose(code: .normal, reason: "", initiator: .client))
        #expect(await events.next(where: { $0 == .abort }) == .abort)
    }

    @Test(
        "after the client's close, a task that stops reading without the server's code ends the socket as the client closed it"
    )
    func clientCloseWithoutServerCode() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        let socket = Self.open(task)
        let closed = socket.close(code: WebSocketCloseCode(4001), reason: "leaving")
        _ = await events.next(where: { if case .close = $0 { true } else { false } })
        task.connectionFails()
        #expect(
            try await closed.value
                == WebSocketClose(code: WebSocketCloseCode(4001), reason: "leaving", initiator: .client))
    }

    @Test("without the server's answer, the close timeout closes the task and the socket ends as lost")
    func closeTimeout() async throws {
        let task = ScriptedMessageTask()
        var options = WebSocketOptions()
        options.closeTimeout = 0.1
        let socket = Self.open(task, options: options)
        let outcome = await socket.close().result
        guard case .failure(WebSocketError.connectionLost(let reason)) = outcome else {
            Issue.record("expected connectionLost, got \(outcome)")
            return
        }
        #expect(reason.contains("no close frame"))
        var events = task.events.makeAsyncIterator()
        #expect(await events.next(where: { $0 == .abort }) == .abort)
    }

    @Test("keep-alive pings go through the task; when their pongs stop, the socket ends as lost")
    func keepAlive() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        var options = WebSocketOptions()
        // Long enough that a pong, answered at once, is always in before the next tick, however
        // loaded the run (0.05 s was not, under ThreadSanitizer in CI).
        options.keepAliveInterval = 1
        let socket = Self.open(task, options: options)
        // Answered pings keep it open: a second ping, not a close.
        for _ in 0..<2 {
            let next = await events.next(where: { event in
                if case .close = event { return true }
                return event == .ping
            })
            #expect(next == .ping)
        }
        task.answersPings = false
        let outcome = await socket.closed.result
        guard case .failure(WebSocketError.connectionLost(let reason)) = outcome else {
            Issue.record("expected connectionLost, got \(outcome)")
            return
        }
        #expect(reason.contains("no pong"))
        #expect(
            await events.next(where: { if case .close = $0 { true } else { false } })
                == .close(.goingAway, reason: "no pong within the keep-alive timeout"))
    }

    @Test("a reader that falls behind stops the task's reading; reading its messages starts it again")
    func backpressure() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        var options = WebSocketOptions()
        options.bufferSize = 1_000
        let socket = Self.open(task, options: options)
        for index in 0..<4 { task.serverSends(.binary(Data(repeating: UInt8(index), count: 400))) }
        #expect(await socket.connection.readingPausedOnce())
        // Past the buffer, no message is asked for; the fourth waits in the task.
        #expect(!task.isReceiving)
        var iterator = socket.messages.makeAsyncIterator()
        for index in 0..<4 {
            #expect(try await iterator.next() == .binary(Data(repeating: UInt8(index), count: 400)))
        }
        // Read again: the task is asked for more.
        var receives = 0
        while receives < 5, await events.next(where: { $0 == .receive }) != nil { receives += 1 }
        #expect(receives == 5)
        socket.cancel()
    }

    @Test(
        "stress: messages both ways from several threads at once, then the server's close; order and count kept"
    )
    func stress() async throws {
        let task = ScriptedMessageTask()
        var options = WebSocketOptions()
        options.bufferSize = 4_096
        let socket = Self.open(task, options: options)
        let count = 2_000
        // The server writes from one thread while the client sends from others and reads.
        DispatchQueue.global().async {
            for index in 0..<count { task.serverSends(.text("s\(index)")) }
            task.serverCloses(code: .normal, reason: "done")
        }
        // Each sender sends in order until a send fails (the socket closed meanwhile).
        let sends = (0..<4).map { sender in
            Task.detached { () -> (sent: Int, failed: Bool) in
                var sent = 0
                do {
                    for index in 0..<count / 4 {
                        try await socket.send(text: "c\(sender).\(index)").value
                        sent += 1
                    }
                } catch {
                    return (sent, true)
                }
                return (sent, false)
            }
        }
        var received = 0
        for try await message in socket.messages {
            #expect(message == .text("s\(received)"))
            received += 1
        }
        #expect(received == count)
        #expect(try await socket.closed.value.initiator == .server)
        var outcomes: [(sent: Int, failed: Bool)] = []
        for send in sends { outcomes.append(await send.value) }
        task.finishEvents()
        var seen = [Int](repeating: 0, count: 4)
        for await event in task.events {
            guard case .sent(.text(let text)) = event else { continue }
            let parts = text.dropFirst().split(separator: ".").compactMap { Int($0) }
            // Each sender's messages reach the task once each, in the order it sent them.
            #expect(parts.count == 2 && parts[1] == seen[parts[0]], "\(text)")
            seen[parts[0]] += 1
        }
        for (sender, outcome) in outcomes.enumerated() {
            // Every send that succeeded reached the task, and none that failed did; a sender
            // stopped early only on a failed send.
            #expect(seen[sender] == outcome.sent, "sender \(sender)")
            #expect(outcome.sent == count / 4 || outcome.failed, "sender \(sender)")
        }
    }

    @Test("a connection that fails without a close ends the socket as lost, with the task's error")
    func connectionFails() async throws {
        let task = ScriptedMessageTask()
        let socket = Self.open(task)
        task.connectionFails()
        let outcome = await socket.closed.result
        guard case .failure(WebSocketError.connectionLost) = outcome else {
            Issue.record("expected connectionLost, got \(outcome)")
            return
        }
    }

    @Test("cancel() aborts the task and fails the socket with cancelled")
    func cancel() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        let socket = Self.open(task)
        socket.cancel()
        #expect(await events.next(where: { $0 == .abort }) == .abort)
        let outcome = await socket.closed.result
        guard case .failure(APIError.cancelled) = outcome else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
    }

    enum Ending: CaseIterable, Sendable {
        case violation, serverClose, releasedOpen
    }

    @Test(
        "an ended socket, or one released open, frees its connection and its task", arguments: Ending.allCases
    )
    func freed(_ ending: Ending) async throws {
        weak var weakConnection: WebSocketConnection?
        weak var weakAdapter: MessageTaskConnection?
        weak var weakTask: ScriptedMessageTask?
        do {
            let task = ScriptedMessageTask()
            let adapter = MessageTaskConnection(task: task)
            (weakTask, weakAdapter) = (task, adapter)
            do {
                var options = WebSocketOptions()
                options.maximumMessageSize = 100
                let socket = Self.open(task, options: options, over: adapter)
                weakConnection = socket.connection
                switch ending {
                case .violation:
                    task.serverSends(.binary(Data(count: 101)))
                    _ = await socket.closed.result
                case .serverClose:
                    task.serverCloses(code: .normal, reason: "")
                    _ = await socket.closed.result
                case .releasedOpen:
                    task.serverSends(.text("unread"))
                }
            }
            // What the connection still had to tell its socket has been told.
            await adapter.drained()
        }
        #expect(weakConnection == nil)
        #expect(weakAdapter == nil)
        #expect(weakTask == nil)
    }

    @Test("a message over the limit fails the socket with 1009, sent to the task")
    func messageTooBig() async throws {
        let task = ScriptedMessageTask()
        var events = task.events.makeAsyncIterator()
        var options = WebSocketOptions()
        options.maximumMessageSize = 100
        let socket = Self.open(task, options: options)
        task.serverSends(.binary(Data(count: 101)))
        let outcome = await socket.closed.result
        guard case .failure(WebSocketError.protocolViolation(let code, _)) = outcome else {
            Issue.record("expected a violation, got \(outcome)")
            return
        }
        #expect(code == .messageTooBig)
        let sent = await events.next(where: { if case .close = $0 { true } else { false } })
        guard case .close(let sentCode, _) = sent else {
            Issue.record("no close sent to the task")
            return
        }
        #expect(sentCode == .messageTooBig)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
