import Foundation
import Promises
import Testing

@testable import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets through ``URLSessionTransport`` as on Apple platforms, with the session's
/// WebSocket task scripted (FoundationNetworking has none that works): the handshake's request
/// as the pipeline and the transport make it, the answers a task can give (a `101`, a refusal, a
/// redirect, none), and the socket that opens over the task.
@Suite("WebSocket: through URLSessionTransport's WebSocket tasks (scripted)", .timeLimit(.minutes(10)))
struct URLSessionSocketTests {
    /// Makes scripted tasks for a transport and hands them to the test as they are started.
    final class Tasks: Sendable {
        let made: AsyncStream<ScriptedMessageTask>
        private let continuation: AsyncStream<ScriptedMessageTask>.Continuation
        init() { (made, continuation) = AsyncStream.makeStream() }
        var maker: SocketTaskMaker {
            { [continuation] _, request, limit in
                let task = ScriptedMessageTask(request: request, messageLimit: limit)
                continuation.yield(task)
                return task
            }
        }
    }

    final class ChatAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL = "https://chat.example.com"
    }

    private static func api(_ tasks: Tasks, cookies: CookieJar = CookieJar()) -> (
        ChatAPI, URLSessionTransport
    ) {
        let transport = URLSessionTransport(
            configuration: .ephemeral, cookies: cookies, tls: TLSOptions(), socketTasks: tasks.maker)
        let api = ChatAPI(responseParser: JSONParser(), transport: transport)
        api.configuration.headers = ["Authorization": "Bearer secret"]
        // Ten minutes without progress, not one: under ThreadSanitizer on two cores these tests
        // took over 270 s, and an opening timed out. The timeout test sets its own.
        api.configuration.timeout = 600
        return (api, transport)
    }

    /// An opening to `/rooms/lobby` under way: the API's promise, and the task its transport made.
    struct Opening {
        let transport: URLSessionTransport
        let promise: Promise<WebSocket>
        let task: ScriptedMessageTask
        /// The tasks made after the first (a redirect's).
        var made: AsyncStream<ScriptedMessageTask>.Iterator
        var parts: (URLSessionTransport, Promise<WebSocket>, ScriptedMessageTask) {
            (transport, promise, task)
        }
    }

    private static func opening(timeout: TimeInterval? = nil) async throws -> Opening {
        let tasks = Tasks()
        let (api, transport) = api(tasks)
        if let timeout { api.configuration.timeout = timeout }
        let promise = api.webSocket(route: api.get(endpoint: "/rooms/lobby"))
        var made = tasks.made.makeAsyncIterator()
        let task = try #require(await made.next())
        return Opening(transport: transport, promise: promise, task: task, made: made)
    }

    private static func response(
        _ status: Int, url: String = "wss://chat.example.com/rooms/lobby", _ headers: [String: String] = [:]
    ) -> HTTPURLResponse {
        HTTPURLResponse(
            url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    @Test(
        "the handshake goes to the task with the pipeline's headers, the jar's cookies and only the subprotocols; the 101 opens the socket"
    )
    func opens() async throws {
        let tasks = Tasks()
        let cookies = CookieJar()
        let (api, transport) = Self.api(tasks, cookies: cookies)
        var options = WebSocketOptions()
        options.subprotocols = ["chat.v2", "chat.v1"]
        options.maximumMessageSize = 3 << 20
        options.maximumOutgoingFrameSize = 5
        let opening = api.webSocket(route: api.get(endpoint: "/rooms/lobby"), options: options)
        var made = tasks.made.makeAsyncIterator()
        let task = try #require(await made.next())
        var events = task.events.makeAsyncIterator()
        #expect(await events.next() == .resume)
        let request = try #require(task.request)
        #expect(request.url?.absoluteString == "wss://chat.example.com/rooms/lobby")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == "chat.v2, chat.v1")
        // The task makes its own key and extensions.
        for name in ["Sec-WebSocket-Key", "Sec-WebSocket-Extensions", "Sec-WebSocket-Version", "Upgrade"] {
            #expect(request.value(forHTTPHeaderField: name) == nil, "\(name)")
        }
        #expect(task.messageLimit == 3 << 20)
        task.httpResponse = Self.response(
            101,
            [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Protocol": "chat.v1",
                "Set-Cookie": "session=abc; Path=/",
            ])
        transport.socketRegistry.opened(task.identifier)
        let socket = try await opening.value
        #expect(socket.subprotocol == "chat.v1")
        #expect(socket.extensions.isEmpty)
        #expect(socket.response.statusCode == 101)
        #expect(cookies.cookies(for: URL(string: "https://chat.example.com/")!).map(\.name) == ["session"])
        // Messages both ways over the task; fragments the client would send go as one message.
        task.serverSends(.text("welcome"))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("welcome"))
        try await socket.send(text: "hello there").value
        #expect(
            await events.next(where: { if case .sent = $0 { true } else { false } })
                == .sent(.text("hello there")))
        // The next handshake carries the cookie.
        let second = api.webSocket(route: api.get(endpoint: "/rooms/lobby"))
        let next = try #require(await made.next())
        #expect(next.request?.value(forHTTPHeaderField: "Cookie") == "session=abc")
        second.cancel()
        socket.cancel()
    }

    @Test("a task that keeps no 101 gets one made from the subprotocol it told")
    func openedWithoutResponse() async throws {
        let tasks = Tasks()
        let (api, transport) = Self.api(tasks)
        var options = WebSocketOptions()
        options.subprotocols = ["chat"]
        let opening = api.webSocket(route: api.get(endpoint: "/rooms/lobby"), options: options)
        var made = tasks.made.makeAsyncIterator()
        let task = try #require(await made.next())
        transport.socketRegistry.opened(task.identifier, subprotocol: "chat")
        let socket = try await opening.value
        #expect(socket.response.statusCode == 101)
        #expect(socket.subprotocol == "chat")
        socket.cancel()
    }

    @Test("a refused handshake fails like any request, with the status; the task's error is not the story")
    func refused() async throws {
        let (transport, opening, task) = try await Self.opening().parts
        task.httpResponse = Self.response(403)
        transport.socketRegistry.completed(task.identifier, error: URLError(.badServerResponse))
        let result = await opening.result
        guard case .failure(let error as APIError) = result else {
            Issue.record("expected an APIError, got \(result)")
            return
        }
        #expect(error.response?.statusCode == 403)
    }

    @Test("a redirect is followed with a new task, credentials dropped across origins")
    func redirect() async throws {
        var started = try await Self.opening()
        let (transport, opening, first) = started.parts
        // A wss:// Location is the https:// one its handshake goes to.
        first.httpResponse = Self.response(302, ["Location": "wss://other.example.com/socket"])
        transport.socketRegistry.completed(first.identifier, error: URLError(.badServerResponse))
        let second = try #require(await started.made.next())
        #expect(second.request?.url?.absoluteString == "wss://other.example.com/socket")
        #expect(second.request?.value(forHTTPHeaderField: "Authorization") == nil)
        second.httpResponse = Self.response(
            101, url: "wss://other.example.com/socket", ["Upgrade": "websocket", "Connection": "Upgrade"])
        transport.socketRegistry.opened(second.identifier)
        let socket = try await opening.value
        #expect(socket.response.url?.host == "other.example.com")
        socket.cancel()
    }

    @Test("a subprotocol that was not offered fails the opening and closes the task")
    func subprotocolNotOffered() async throws {
        let (transport, opening, task) = try await Self.opening().parts
        var events = task.events.makeAsyncIterator()
        task.httpResponse = Self.response(
            101, ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Protocol": "other"])
        transport.socketRegistry.opened(task.identifier)
        let result = await opening.result
        guard case .failure(APIError.transport(let underlying, _)) = result,
            case .invalidHandshake(let reason) = underlying as? WebSocketError
        else {
            Issue.record("expected an invalid handshake, got \(result)")
            return
        }
        #expect(reason.contains("not offered"))
        #expect(await events.next(where: { $0 == .abort }) == .abort)
    }

    @Test("a task that never answers fails the opening when the API's timeout passes, and is closed")
    func timesOut() async throws {
        let (_, opening, task) = try await Self.opening(timeout: 0.2).parts
        var events = task.events.makeAsyncIterator()
        let result = await opening.result
        guard case .failure(APIError.timedOut) = result else {
            Issue.record("expected timedOut, got \(result)")
            return
        }
        #expect(await events.next(where: { $0 == .abort }) == .abort)
    }

    @Test("a server key the pins refuse fails the opening with that reason, not as cancelled")
    func pinRefused() async throws {
        let (transport, opening, task) = try await Self.opening().parts
        // As the session delegate does when the pins refuse the key; the task then ends cancelled.
        transport.socketRegistry.failed(task.identifier, underlying: URLError(.secureConnectionFailed))
        transport.socketRegistry.completed(task.identifier, error: URLError(.cancelled))
        let result = await opening.result
        guard case .failure(APIError.transport(let underlying, _)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect((underlying as? URLError)?.code == .secureConnectionFailed)
    }

    @Test("cancelling the opening closes its task")
    func cancelled() async throws {
        let (_, opening, task) = try await Self.opening().parts
        var events = task.events.makeAsyncIterator()
        #expect(await events.next() == .resume)
        opening.cancel()
        #expect(await events.next(where: { $0 == .abort }) == .abort)
    }
}
