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
        var lastActivity = DispatchTime.now()
        /// The current task's bytes sent and received when the idle timer last looked.
        var movedBytes: Int64 = 0
        var challengeCancelled = false
        var isFinished = false
    }

    let original: TransportRequest
    let resolver: Resolver<TransportResponse>
    private let state: Locked<State>
    private let timers: DispatchQueue
    private let control: DispatchQueue

    init(
        _ request: TransportRequest,
        resolver: Resolver<TransportResponse>,
        timers: DispatchQueue,
        control: DispatchQueue
    ) {
        original = request
        self.resolver = resolver
        state = Locked(State(request: request.urlRequest))
        self.timers = timers
        self.control = control
    }

    // MARK: Starting and ending

    /// Creates and resumes the task for the current hop. Waits for FoundationNetworking: call
    /// it on a background thread that is not the delegate queue.
    func startTask(in session: URLSession, registry: TaskRegistry) {
        guard var request = state.withLock({ $0.isFinished ? nil : $0.request }) else { return }
        // URLSession's own timer truncates fractions on Linux; ours fires first and exactly.
        // Without an idle timeout, URLSession's must not fire either: a year stands for none
        // (FoundationNetworking turns the interval into whole milliseconds, so no infinity).
        request.timeoutInterval = original.idleTimeout.map { $0.rounded(.up) + 1 } ?? Self.noTimeout
        // A body file is uploaded from disk; a redirect that turned the request into a GET has
        // dropped its body, and with it the file.
        let keepsBody = request.httpMethod != "GET" && request.httpMethod != "HEAD"
        let task: URLSessionDataTask =
            if let file = original.bodyFileURL, keepsBody {
                session.uploadTask(with: request, fromFile: file)
            } else {
                session.dataTask(with: request)
            }
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
    private func startTaskLater(in session: URLSession, registry: TaskRegistry) {
        control.async { self.startTask(in: session, registry: registry) }
    }

    /// Starts the idle and total timers.
    func startTimers() {
        if let deadline = original.deadline {
            timers.asyncAfter(deadline: .now() + deadline) { [weak self] in self?.timeOut() }
        }
        if let idle = original.idleTimeout { scheduleIdleCheck(after: idle) }
    }

    /// Cancels the network work; the promise is already cancelled. Returns at once: it may run
    /// on any thread (the canceller's, the main queue, a task-cancellation handler).
    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.isFinished = true
            return Self.isBodyComplete(state) ? nil : state.task
        }
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

    /// URLSession's timeout when Osprey sets none.
    static let noTimeout: TimeInterval = 365 * 24 * 3600

    /// The most memory reserved from a `Content-Length` before the bytes arrive.
    private static let largestReservation = 8 * 1024 * 1024

    /// Whether every byte the response declared has arrived. Unknown for a compressed body
    /// (its length is of the encoded bytes) or one without a length: then the task is cancelled.
    private static func isBodyComplete(_ state: State) -> Bool {
        guard let length = state.bodyLength else { return false }
        return Int64(state.data.count) >= length
    }

    private func timeOut() {
        fail { .timedOut(context: $0) }
    }

    private func scheduleIdleCheck(after delay: TimeInterval) {
        timers.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, let idle = original.idleTimeout else { return }
            let (finished, task) = state.withLock { ($0.isFinished, $0.task) }
            guard !finished else { return }
            // Bytes the session has moved but whose callbacks still wait on a busy delegate
            // queue are progress too: a starved queue must not time a live transfer out.
            let moved = task.map { $0.countOfBytesSent + $0.countOfBytesReceived } ?? 0
            let idleSince = state.withLock { state -> DispatchTime in
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
        let ended = state.withLock { state -> (URLSessionDataTask?, APIError.Context)? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            return (
                Self.isBodyComplete(state) ? nil : state.task,
                APIError.Context(request: state.request, response: state.response, data: state.data)
            )
        }
        guard let (task, context) = ended else { return }
        cancelLater(task)
        resolver.reject(makeError(context))
    }

    // MARK: Delegate events

    func received(_ response: HTTPURLResponse) {
        let verdict = state.withLock { state -> FramingVerdict in
            state.response = response
            state.lastActivity = .now()
            let verdict = self.verdict(on: response, method: state.request.httpMethod)
            if case .accept(let length?) = verdict {
                state.bodyLength = length
                // Room for the announced body up front instead of regrowing chunk by chunk;
                // capped, because the header is only the server's word.
                let cap = min(original.maximumResponseBytes ?? Int.max, Self.largestReservation)
                state.data.reserveCapacity(Int(min(length, Int64(cap))))
            }
            return verdict
        }
        reject(verdict)
    }

    /// Body bytes went out: the exchange is making progress, whatever the server says later.
    func sentBodyData() {
        state.withLock { $0.lastActivity = .now() }
    }

    func received(_ data: Data) {
        let tooLarge = state.withLock { state -> Bool in
            // After a failure or cancellation FoundationNetworking may still deliver queued
            // chunks: drop them rather than keep growing.
            guard !state.isFinished else { return false }
            state.data.append(data)
            state.lastActivity = .now()
            return original.maximumResponseBytes.map { state.data.count > $0 } ?? false
        }
        if tooLarge, let limit = original.maximumResponseBytes {
            fail { .responseTooLarge(limit: limit, context: $0) }
        }
    }

    func challengeWasCancelled() {
        state.withLock { $0.challengeCancelled = true }
    }

    /// The task ended: deliver, follow a redirect, or fail.
    func completed(_ task: URLSessionTask, error: (any Error)?, session: URLSession, registry: TaskRegistry) {
        let (snapshot, verdict) = state.withLock { state -> (State?, FramingVerdict) in
            guard !state.isFinished, state.task === task else { return (nil, .accept(bodyLength: nil)) }
            guard state.response == nil, let response = task.response as? HTTPURLResponse else {
                return (state, .accept(bodyLength: nil))
            }
            // The head came without a didReceive(response) (the Basic-challenge path): check it here.
            state.response = response
            let verdict = self.verdict(on: response, method: state.request.httpMethod)
            if case .accept(let length) = verdict { state.bodyLength = length }
            return (state, verdict)
        }
        guard let snapshot else { return }
        if case .accept = verdict {} else { return reject(verdict) }
        if let error {
            // Linux workaround: a 401 with a Basic challenge would hang unless the challenge is
            // cancelled; the task then ends "cancelled" but the 401 is a real answer.
            if snapshot.challengeCancelled, let response = snapshot.response, response.statusCode == 401 {
                return deliver(response, snapshot)
            }
            return fail { .transport(underlying: error, context: $0) }
        }
        guard let response = snapshot.response else {
            return fail { .transport(underlying: URLError(.badServerResponse), context: $0) }
        }
        if let length = snapshot.bodyLength, Int64(snapshot.data.count) < length {
            return fail { .transport(underlying: URLError(.networkConnectionLost), context: $0) }
        }
        guard case .follow(let limit) = original.redirectPolicy else { return deliver(response, snapshot) }
        switch RedirectRules.decide(
            after: response,
            to: snapshot.request,
            original: original.urlRequest,
            sensitiveHeaders: original.sensitiveHeaders
        ) {
        case .deliver:
            deliver(response, snapshot)
        case .refuse(let reason):
            fail { .redirectRefused(reason: reason, context: $0) }
        case .follow(let next, _):
            guard snapshot.redirects < limit else {
                return fail { .redirectRefused(reason: "more than \(limit) redirects", context: $0) }
            }
            state.withLock { state in
                state.request = next
                state.redirects += 1
            }
            startTaskLater(in: session, registry: registry)
        }
    }

    private func deliver(_ response: HTTPURLResponse, _ snapshot: State) {
        let first = state.withLock { state -> Bool in
            defer { state.isFinished = true }
            return !state.isFinished
        }
        if first {
            resolver.fulfill(
                TransportResponse(response: response, data: snapshot.data, request: snapshot.request))
        }
    }

}
