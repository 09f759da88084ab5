import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request through ``URLSessionTransport``: its tasks (one per redirect hop), the body
/// received so far, its timers, and the resolver it settles exactly once.
///
/// Creating, resuming and cancelling a task wait for FoundationNetworking's work queue, which
/// can be busy for seconds (inflating a compressed body, say). None of them may run on the
/// session's delegate queue (every transfer's data would queue up behind it, in memory), under
/// the exchange's lock, or on the main queue: they run on the transport's `control` queue, or on
/// the background thread that sent the request.
final class Exchange: Sendable {
    struct State {
        var request: URLRequest
        var task: URLSessionDataTask?
        var response: HTTPURLResponse?
        /// The body length the response declared (nil when unknown or compressed).
        var bodyLength: Int64?
        var data = Data()
        var redirects = 0
        /// The heads of the redirects followed, for the response's ``TransportResponse/redirects``.
        var hops: [TransportResponse] = []
        var lastActivity = DispatchTime.now()
        /// The current task's bytes sent and received when the idle timer last looked.
        var movedBytes: Int64 = 0
        var challengeCancelled = false
        var isFinished = false
        /// Whether this hop's response is the one delivered (not a redirect being followed).
        var isFinalResponse = false
        /// Whether the download sink takes this hop's body.
        var sinking = false
        /// Whether the download sink was begun (and so must be ended or abandoned).
        var sinkBegun = false
        /// Body bytes received on this hop, in memory or written to the sink.
        var bodyBytes: Int64 = 0
        /// Whether the delivery gate is armed for this exchange's download.
        var gateArmed = false
        /// Whether the task is suspended until a stream's reader catches up.
        var suspendedForReader = false
        /// When the current hop's task started, and when its response's head arrived.
        var hopStarted = DispatchTime.now()
        var headArrived: DispatchTime?
        /// Body bytes sent on this hop, as URLSession reported them.
        var bodySent: Int64 = 0
        /// The length of this hop's body when URLSession cannot tell it (a stream).
        var uploadLength: Int64?
        /// What URLSession measured of this hop (Apple platforms only).
        var collected: RequestMetrics?
    }

    let original: TransportRequest
    let resolver: Resolver<TransportResponse>
    let state: Locked<State>
    let timers: DispatchQueue
    let control: DispatchQueue
    /// Holds FoundationNetworking back while this exchange's download falls behind.
    let gate: DeliveryGate?
    /// The transport's cookies.
    let cookies: CookieJar?
    /// Where tasks are suspended and resumed for a stream's reader, in order (serial).
    let flowControl: DispatchQueue?

    init(
        _ request: TransportRequest,
        resolver: Resolver<TransportResponse>,
        timers: DispatchQueue,
        control: DispatchQueue,
        gate: DeliveryGate? = nil,
        cookies: CookieJar? = nil,
        flowControl: DispatchQueue? = nil
    ) {
        original = request
        self.resolver = resolver
        state = Locked(State(request: request.urlRequest))
        self.timers = timers
        self.control = control
        self.gate = gate
        self.cookies = cookies
        self.flowControl = flowControl
    }

    // MARK: Starting and ending

    /// Creates and resumes the task for the current hop. Waits for FoundationNetworking: call
    /// it on a background thread that is not the delegate queue.
    func startTask(in session: URLSession, registry: TaskRegistry) {
        guard var request = state.withLock({ $0.isFinished ? nil : $0.request }) else { return }
        // URLSession's own timer truncates fractions on Linux; ours fires first and exactly.
        // Without an idle timeout, URLSession's must not fire either: a year stands for none
        // (FoundationNetworking turns the interval into whole milliseconds, so no infinity).
        request.timeoutInterval = idleTimeout.map { $0.rounded(.up) + 1 } ?? Self.noTimeout
        // The jar's cookies go on the task's copy only; a request's own `Cookie` is left alone.
        request.httpShouldHandleCookies = false
        request = TransportRequest.withoutCallersFraming(request)
        if let value = cookies?.headerValue(for: request.url, fields: request.allHTTPHeaderFields) {
            request.setValue(value, forHTTPHeaderField: "Cookie")
        }
        // A body file is uploaded from disk; a redirect that turned the request into a GET has
        // dropped its body, and with it the file.
        let keepsBody = request.httpMethod != "GET" && request.httpMethod != "HEAD"
        var uploadLength: Int64?
        let task: URLSessionDataTask
        #if canImport(FoundationNetworking)
            // Never a file task on Linux: see `carrying(_:in:)`.
            if let file = original.bodyFileURL, keepsBody {
                if let (carrying, length) = Self.carrying(file, in: request) {
                    uploadLength = length
                    task = session.dataTask(with: carrying)
                } else {
                    task = session.uploadTask(with: request, fromFile: file)
                }
            } else {
                task = session.dataTask(with: request)
            }
        #else
            if let file = original.bodyFileURL, keepsBody {
                task = session.uploadTask(with: request, fromFile: file)
            } else {
                task = session.dataTask(with: request)
            }
        #endif
        // Registered before it can be cancelled, so that its completion always finds the
        // exchange and the registry never keeps a finished task.
        registry.register(task, for: self)
        let started = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.task = task
            state.response = nil
            state.bodyLength = nil
            state.data = Data()
            state.lastActivity = .now()
            state.movedBytes = 0
            state.isFinalResponse = false
            state.sinking = false
            state.bodyBytes = 0
            state.hopStarted = .now()
            state.headArrived = nil
            state.bodySent = 0
            state.uploadLength = uploadLength
            state.collected = nil
            return true
        }
        // Cancelled meanwhile: a suspended task that is cancelled completes and is forgotten.
        started ? task.resume() : task.cancel()
    }

    /// Makes `task` the current hop's task without starting it, for tests that drive the
    /// exchange with a task of their own.
    func adoptForTesting(_ task: URLSessionDataTask) {
        state.withLock { $0.task = task }
    }

    /// Starts the next hop's task from the control queue.
    func startTaskLater(in session: URLSession, registry: TaskRegistry) {
        control.async { self.startTask(in: session, registry: registry) }
    }

    /// Starts the idle and total timers.
    func startTimers() {
        if let deadline = effectiveTimeout(original.deadline) {
            timers.asyncAfter(deadline: .now() + deadline) { [weak self] in self?.timeOut() }
        }
        if let idle = idleTimeout { scheduleIdleCheck(after: idle) }
    }

    /// Cancels the network work; the promise is already cancelled. Returns at once: it may run
    /// on any thread (the canceller's, the main queue, a task-cancellation handler).
    func cancel() {
        let (task, abandons, armed) = state.withLock { state -> (URLSessionDataTask?, Bool, Bool) in
            let abandons = state.sinkBegun && !state.isFinished
            state.isFinished = true
            defer { state.gateArmed = false }
            return (Self.isBodyComplete(state) ? nil : state.task, abandons, state.gateArmed)
        }
        if armed { gate?.disarm() }
        if abandons { original.downloadSink?.abandon() }
        cancelLater(task)
    }

    /// Cancels `task` from the control queue, unless it is no longer running: FoundationNetworking
    /// (6.3) can crash ("task that is not in the registry") when a task is cancelled just as it
    /// completes, so tasks that ended or whose body has fully arrived are left alone (their
    /// completion is ignored).
    private func cancelLater(_ task: URLSessionDataTask?) {
        guard let task else { return }
        control.async {
            if task.state == .running || task.state == .suspended { task.cancel() }
        }
    }

    /// The request's idle timeout, as applied (see `effectiveTimeout`).
    private var idleTimeout: TimeInterval? { effectiveTimeout(original.idleTimeout) }

    /// URLSession's timeout when Osprey sets none.
    static let noTimeout: TimeInterval = 365 * 24 * 3600

    /// The most memory reserved from a `Content-Length` before the bytes arrive.
    static let largestReservation = 8 * 1024 * 1024

    /// Whether every byte the response declared has arrived. Unknown for a compressed body
    /// (its length is of the encoded bytes) or one without a length: then the task is cancelled.
    static func isBodyComplete(_ state: State) -> Bool {
        guard let length = state.bodyLength else { return false }
        return state.bodyBytes >= length
    }

    private func timeOut() {
        fail { .timedOut(context: $0) }
    }

    private func scheduleIdleCheck(after delay: TimeInterval) {
        timers.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, let idle = idleTimeout else { return }
            let (finished, task) = state.withLock { ($0.isFinished, $0.task) }
            guard !finished else { return }
            // Bytes the session has moved but whose callbacks still wait on a busy delegate
            // queue are progress too: a starved queue must not time a live transfer out.
            let moved = task.map { $0.countOfBytesSent + $0.countOfBytesReceived } ?? 0
            let idleSince = state.withLock { state -> DispatchTime in
                // Held back for a stream's reader: the server is not idle.
                if state.suspendedForReader { state.lastActivity = .now() }
                if moved > state.movedBytes {
                    state.movedBytes = moved
                    state.lastActivity = .now()
                }
                return state.lastActivity
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - idleSince.uptimeNanoseconds) / 1e9
            if elapsed >= idle { timeOut() } else { scheduleIdleCheck(after: idle - elapsed) }
        }
    }

    /// Ends the exchange with an error made from the current context, cancelling the task.
    func fail(_ makeError: (APIError.Context) -> APIError) {
        let ended = state.withLock { state -> (URLSessionDataTask?, APIError.Context, Bool, Bool)? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            defer { state.gateArmed = false }
            return (
                Self.isBodyComplete(state) ? nil : state.task,
                APIError.Context(request: state.request, response: state.response, data: state.data),
                state.sinkBegun, state.gateArmed
            )
        }
        guard let (task, context, abandons, armed) = ended else { return }
        if armed { gate?.disarm() }
        if abandons { original.downloadSink?.abandon() }
        cancelLater(task)
        resolver.reject(makeError(context))
    }
}
