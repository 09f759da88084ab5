import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A scripted HTTP/1.1 server on 127.0.0.1 for tests, examples and benchmarks: no internet needed.
///
/// It listens on an ephemeral port from `init` until `stop()`, serves each connection on its own
/// thread (keep-alive, chunked bodies, `100-continue`), routes by method and path pattern, records
/// every request byte for byte, and misbehaves on purpose when a response says so. Once one has
/// been made, Osprey's `CurlTransport` keeps idle connections for an hour, not 118 s, so that
/// counting the connections a test opened does not depend on the machine's speed.
///
/// ```swift
/// let server = try LoopbackServer()
/// defer { server.stop() }
/// server.route("GET", "/users/:id") { request in
///     .json(#"{"id": "\#(request.pathParameters["id"]!)"}"#)
/// }
/// // ... send requests to server.url("/users/42") ...
/// #expect(server.requests.first?.value(forHeader: "Accept") == "application/json")
/// ```
///
/// Handlers run on the connection's thread and must return; `stop()` waits for them.
/// Malformed requests are answered with 400 (or 413, 431, 501, 505) and recorded as rejections.
public final class LoopbackServer: Sendable {
    /// Limits applied to every request.
    public struct Configuration: Sendable {
        /// The largest request head (request line and headers) accepted; larger gets 431.
        public var maximumHeadBytes: Int
        /// The largest request body accepted; larger gets 413.
        public var maximumBodyBytes: Int
        /// Count bodies (with a `Content-Length` or chunked) without keeping them: `Request.body`
        /// stays empty, `bodyLength` has the size, and `raw` holds the head (and a chunked body's
        /// framing). For uploads too large to hold (set a large `maximumBodyBytes` too).
        public var discardsBodies: Bool
        /// Read at most this many bytes per second from each connection: a slow reader, which
        /// keeps a large upload in flight long enough to cancel it half way. Nil reads at once.
        public var readRateLimit: Int?
        /// Stop reading each connection once it has sent this many bytes, until
        /// ``LoopbackServer/resumeReading()``: an upload stays in flight for as long as a test
        /// needs, however slowly the test runs. Nil never pauses.
        public var pausesReadingAfter: Int?

        /// Creates a configuration; the defaults suit ordinary API tests.
        public init(
            maximumHeadBytes: Int = 64 * 1024,
            maximumBodyBytes: Int = 64 * 1024 * 1024,
            discardsBodies: Bool = false,
            readRateLimit: Int? = nil,
            pausesReadingAfter: Int? = nil
        ) {
            self.maximumHeadBytes = maximumHeadBytes
            self.maximumBodyBytes = maximumBodyBytes
            self.discardsBodies = discardsBodies
            self.readRateLimit = readRateLimit.map { max(1, $0) }
            self.pausesReadingAfter = pausesReadingAfter.map { max(0, $0) }
        }
    }

    /// Answers one request. Throwing answers 500 with the error's description.
    public typealias Handler = @Sendable (Request) throws -> Response

    /// The port the server listens on.
    public let port: UInt16
    private let core: ServerCore

    /// Starts listening on 127.0.0.1 and an ephemeral port.
    /// - Throws: a socket error if the port cannot be opened.
    public init(configuration: Configuration = Configuration()) throws {
        Self.keepClientsIdleConnections()
        let listener = try RetiredPorts.listenOnFreshPort()
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Socket.makeWakePipe()
        } catch {
            close(listener.fd)
            throw error
        }
        port = listener.port
        unixSocketPath = nil
        core = ServerCore(
            configuration: configuration,
            port: listener.port,
            listenerFD: listener.fd,
            wakeReadFD: wake.read,
            wakeWriteFD: wake.write
        )
        core.startAccepting()
    }

    /// Starts listening on a Unix domain socket at `path` (which must not exist yet; it is
    /// removed when the server stops), for clients that reach a local daemon that way. ``port``
    /// is 0, and ``baseURL`` names `localhost`: requests still carry an http URL, which the
    /// client maps to the socket.
    /// - Throws: a socket error if the socket cannot be made.
    public init(unixSocketPath path: String, configuration: Configuration = Configuration()) throws {
        Self.keepClientsIdleConnections()
        let listener = try Socket.listenOnUnixSocket(path: path)
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Socket.makeWakePipe()
        } catch {
            close(listener)
            unlink(path)
            throw error
        }
        port = 0
        unixSocketPath = path
        core = ServerCore(
            configuration: configuration, port: 0, listenerFD: listener, wakeReadFD: wake.read,
            wakeWriteFD: wake.write)
        core.startAccepting()
    }

    /// The Unix domain socket the server listens on, if it listens on one.
    public let unixSocketPath: String?

    deinit {
        if unixSocketPath == nil { RetiredPorts.retire(port) }
        shutDown()
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { baseURL(host: "127.0.0.1") }

    /// The base URL under another name for this machine, such as `localhost`: a different origin
    /// for cross-origin tests that still reaches this server. Without a port for a server on a
    /// Unix domain socket (`http://docker`, say, which the client maps to the socket).
    public func baseURL(host: String) -> URL {
        URL(string: unixSocketPath == nil ? "http://\(host):\(port)" : "http://\(host)")!
    }

    /// The base URL followed by `pathAndQuery` verbatim (it should start with `/`).
    public func url(_ pathAndQuery: String, host: String = "127.0.0.1") -> URL {
        URL(string: "http://\(host):\(port)\(pathAndQuery)")!
    }

    /// Routes requests with `method` (any method when nil) whose path matches `pattern`.
    ///
    /// `:name` captures one segment, a final `*name` the rest of the path. When several routes
    /// match, the one registered last wins, so a test can override an earlier route.
    public func route(_ method: String?, _ pattern: String, handler: @escaping Handler) {
        core.state.withLock { $0.routes.add(method: method, pattern: pattern, handler: handler) }
    }

    /// Routes every method on `pattern` to `handler`.
    public func route(_ pattern: String, handler: @escaping Handler) {
        route(nil, pattern, handler: handler)
    }

    /// Every well-formed request received so far, in arrival order.
    public var requests: [Request] { core.state.withLock { $0.requests } }

    /// Every malformed request refused so far.
    public var rejections: [Rejection] { core.state.withLock { $0.rejections } }

    /// How many TCP connections were accepted.
    public var acceptedConnectionCount: Int { core.state.withLock { $0.acceptedConnections } }

    /// How many connections are open right now.
    public var openConnectionCount: Int { core.state.withLock { $0.openConnections } }

    /// Lets connections paused by ``Configuration/pausesReadingAfter`` read again, from now on.
    public func resumeReading() {
        core.state.withLock { $0.readingResumed = true }
    }

    /// How many bytes the server has read from all its connections so far, complete requests or
    /// not: the way to see that an upload is under way.
    public var receivedByteCount: Int { core.state.withLock { $0.receivedBytes } }

    /// Blocks until at least `count` requests have arrived (or `timeout` passes).
    /// - Returns: whether the count was reached.
    @available(*, noasync, message: "blocks a thread of the cooperative pool; use the async overload")
    @discardableResult
    public func waitForRequests(count: Int, timeout: TimeInterval = 10) -> Bool {
        core.state.wait(timeout: timeout) { $0.requests.count >= count }
    }

    /// Blocks until no connection is open (or `timeout` passes): the way to see that a client
    /// hung up, for example after cancelling a request.
    /// - Returns: whether every connection was closed.
    @available(*, noasync, message: "blocks a thread of the cooperative pool; use the async overload")
    @discardableResult
    public func waitUntilNoOpenConnections(timeout: TimeInterval = 10) -> Bool {
        core.state.wait(timeout: timeout) { $0.openConnections == 0 }
    }

    /// Blocks until the server has read at least `count` bytes in all (or `timeout` passes).
    /// - Returns: whether the count was reached.
    @available(*, noasync, message: "blocks a thread of the cooperative pool; use the async overload")
    @discardableResult
    public func waitForReceivedBytes(atLeast count: Int, timeout: TimeInterval = 10) -> Bool {
        core.state.wait(timeout: timeout) { $0.receivedBytes >= count }
    }

    /// The descriptors the server holds open right now, for its own leak tests.
    var openDescriptors: [Int32] { core.openDescriptors }

    /// Waits, without blocking Swift concurrency's threads, until at least `count` requests have
    /// arrived (or `timeout` passes).
    /// - Returns: whether the count was reached.
    @discardableResult
    public func waitForRequests(count: Int, timeout: TimeInterval = 10) async -> Bool {
        await offCooperativePool { self.waitForRequests(count: count, timeout: timeout) as Bool }
    }

    /// Waits, without blocking Swift concurrency's threads, until no connection is open (or
    /// `timeout` passes).
    /// - Returns: whether every connection was closed.
    @discardableResult
    public func waitUntilNoOpenConnections(timeout: TimeInterval = 10) async -> Bool {
        await offCooperativePool { self.waitUntilNoOpenConnections(timeout: timeout) as Bool }
    }

    /// Waits, without blocking Swift concurrency's threads, until the server has read at least
    /// `count` bytes in all (or `timeout` passes).
    /// - Returns: whether the count was reached.
    @discardableResult
    public func waitForReceivedBytes(atLeast count: Int, timeout: TimeInterval = 10) async -> Bool {
        await offCooperativePool { self.waitForReceivedBytes(atLeast: count, timeout: timeout) as Bool }
    }

    /// Waits, without blocking Swift concurrency's threads, until the server has written at least
    /// `count` bytes after complete responses (``Response/followedByRawBytes(_:after:)``), or
    /// `timeout` passes. On loopback they are then in the client's receive queue.
    /// - Returns: whether the count was reached.
    @discardableResult
    public func waitForStrayBytesSent(atLeast count: Int, timeout: TimeInterval = 10) async -> Bool {
        await offCooperativePool { self.core.state.wait(timeout: timeout) { $0.strayBytesSent >= count } }
    }

    /// Runs a blocking wait on a thread of its own (see ``Blocking``).
    private func offCooperativePool(_ wait: @escaping @Sendable () -> Bool) async -> Bool {
        await Blocking.run(wait)
    }

    /// Stops accepting, ends every connection (interrupting delays and endless bodies), waits for
    /// the server's threads to finish and closes its descriptors. Calling it again does nothing.
    ///
    /// No later server listens on the port again, in this process or another, so a client that
    /// calls it afterwards is refused rather than answered by another test's server.
    public func stop() {
        guard unixSocketPath == nil else { return shutDown() }
        RetiredPorts.retire(port)
        shutDown()
        do {
            try RetiredPorts.hold(port)
        } catch {
            // Not fatal: the port stays retired in this process. Said, because a test that then
            // expects a refusal may meet another process's listener instead.
            FileHandle.standardError.write(
                Data("LoopbackServer: port \(port) could not be held after stop(): \(error)\n".utf8))
        }
    }

    private func shutDown() {
        core.stop()
        if let unixSocketPath { unlink(unixSocketPath) }
    }
}

/// The shared state of a running server; owned by the server and by each of its threads.
final class ServerCore: Sendable {
    struct State {
        var routes = RouteTable<LoopbackServer.Handler>()
        var requests: [LoopbackServer.Request] = []
        var rejections: [LoopbackServer.Rejection] = []
        var acceptedConnections = 0
        var openConnections = 0
        var receivedBytes = 0
        /// Bytes written after complete responses (``Response/followedByRawBytes(_:after:)``).
        var strayBytesSent = 0
        var readingResumed = false
        var connectionDescriptors: Set<Int32> = []
        var isStopped = false
        var threadCount = 0
        var runningThreads: [Int: JoinableThread] = [:]
        var finishedThreads: [JoinableThread] = []
        var finishedBeforeRegistration: Set<Int> = []

        mutating func threadStarted(_ id: Int, _ thread: JoinableThread) {
            // A short-lived thread may finish before its creator gets here.
            if finishedBeforeRegistration.remove(id) != nil {
                finishedThreads.append(thread)
            } else {
                runningThreads[id] = thread
            }
        }

        mutating func threadFinished(_ id: Int) {
            if let thread = runningThreads.removeValue(forKey: id) {
                finishedThreads.append(thread)
            } else {
                finishedBeforeRegistration.insert(id)
            }
        }

        mutating func takeFinishedThreads() -> [JoinableThread] {
            defer { finishedThreads.removeAll() }
            return finishedThreads
        }

        mutating func takeAllThreads() -> [JoinableThread] {
            defer { runningThreads.removeAll() }
            return takeFinishedThreads() + runningThreads.values
        }
    }

    let configuration: LoopbackServer.Configuration
    let state = ConditionLocked(State())
    let wakeReadFD: Int32
    /// Used in thread names (`lb<port>.<connection>`) so tests can find this server's threads.
    let port: UInt16
    private let listenerFD: Int32
    private let wakeWriteFD: Int32

    init(
        configuration: LoopbackServer.Configuration,
        port: UInt16,
        listenerFD: Int32,
        wakeReadFD: Int32,
        wakeWriteFD: Int32
    ) {
        self.configuration = configuration
        self.port = port
        self.listenerFD = listenerFD
        self.wakeReadFD = wakeReadFD
        self.wakeWriteFD = wakeWriteFD
    }

    func startAccepting() {
        spawn(named: "lb\(port).accept") { core in core.acceptLoop() }
    }

    func stop() {
        let wasStopped = state.withLock { state in
            defer { state.isStopped = true }
            return state.isStopped
        }
        guard !wasStopped else { return }
        // The wake pipe stays readable once written, so every poll in every thread returns.
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
        // Joining the accept thread first means every connection thread is registered; keep
        // going until none is left.
        while case let threads = state.withLock({ $0.takeAllThreads() }), !threads.isEmpty {
            for thread in threads { thread.join() }
        }
        close(listenerFD)
        close(wakeReadFD)
        close(wakeWriteFD)
    }

    func record(_ request: LoopbackServer.Request) {
        state.withLock { $0.requests.append(request) }
    }

    func recordReceived(_ count: Int) {
        state.withLock { $0.receivedBytes += count }
    }

    func record(_ rejection: LoopbackServer.Rejection) {
        state.withLock { $0.rejections.append(rejection) }
    }

    func handler(method: String, path: String) -> (LoopbackServer.Handler, [String: String])? {
        state.withLock { $0.routes.match(method: method, path: path) }
    }

    private func connectionEnded(_ fd: Int32) {
        state.withLock { state in
            state.openConnections -= 1
            state.connectionDescriptors.remove(fd)
        }
    }

    /// The descriptors open right now: listener, wake pipe, connections (none once stopped).
    var openDescriptors: [Int32] {
        state.withLock { state in
            state.isStopped ? [] : [listenerFD, wakeReadFD, wakeWriteFD] + state.connectionDescriptors
        }
    }

    private func acceptLoop() {
        while case .ready = Socket.wait(for: listenerFD, wakeFD: wakeReadFD) {
            do {
                while let fd = try Socket.accept(from: listenerFD) {
                    let id = state.withLock { state in
                        state.acceptedConnections += 1
                        state.openConnections += 1
                        state.connectionDescriptors.insert(fd)
                        return state.acceptedConnections
                    }
                    let started = spawn(named: "lb\(port).\(id)") { core in
                        LoopbackConnection(fd: fd, id: id, core: core).serve()
                        core.connectionEnded(fd)
                    }
                    if !started {
                        close(fd)
                        connectionEnded(fd)
                    }
                }
            } catch {
                // Out of descriptors or similar: back off briefly instead of spinning on poll.
                _ = Socket.wait(for: -1, wakeFD: wakeReadFD, timeout: 0.01)
            }
        }
    }

    /// Starts a server thread; false if the system would not make one. Finished connection
    /// threads are joined as new ones start and the rest when the server stops, so a long-lived
    /// server does not pile up exited threads.
    @discardableResult
    private func spawn(named name: String, _ body: @escaping @Sendable (ServerCore) -> Void) -> Bool {
        for thread in state.withLock({ $0.takeFinishedThreads() }) { thread.join() }
        let id = state.withLock { state in
            state.threadCount += 1
            return state.threadCount
        }
        do {
            let thread = try JoinableThread(name: name) { [self] in
                body(self)
                state.withLock { $0.threadFinished(id) }
            }
            state.withLock { $0.threadStarted(id, thread) }
            return true
        } catch {
            return false
        }
    }
}
