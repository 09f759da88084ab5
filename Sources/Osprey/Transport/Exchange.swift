import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request through ``URLSessionTransport``: its tasks (one per redirect hop), the body
/// received so far, its timers, and the resolver it settles exactly once.
final class Exchange: Sendable {
    struct State {
        var request: URLRequest
        var task: URLSessionDataTask?
        var response: HTTPURLResponse?
        var data = Data()
        var redirects = 0
        var lastActivity = DispatchTime.now()
        var challengeCancelled = false
        var isFinished = false
    }

    let original: TransportRequest
    let resolver: Resolver<TransportResponse>
    private let state: Locked<State>
    private let timers: DispatchQueue

    init(_ request: TransportRequest, resolver: Resolver<TransportResponse>, timers: DispatchQueue) {
        original = request
        self.resolver = resolver
        state = Locked(State(request: request.urlRequest))
        self.timers = timers
    }

    // MARK: Starting and ending

    /// Creates and resumes the task for the current hop.
    func startTask(in session: URLSession, registry: TaskRegistry) {
        let task = state.withLock { state -> URLSessionDataTask? in
            guard !state.isFinished else { return nil }
            var request = state.request
            // URLSession's own timer truncates fractions on Linux; ours fires first and exactly.
            if let idle = original.idleTimeout { request.timeoutInterval = idle.rounded(.up) + 1 }
            // A body file is uploaded from disk; a redirect that turned the request into a GET
            // has dropped its body, and with it the file.
            let keepsBody = request.httpMethod != "GET" && request.httpMethod != "HEAD"
            let task: URLSessionDataTask =
                if let file = original.bodyFileURL, keepsBody {
                    session.uploadTask(with: request, fromFile: file)
                } else {
                    session.dataTask(with: request)
                }
            state.task = task
            state.response = nil
            state.data = Data()
            state.lastActivity = .now()
            return task
        }
        guard let task else { return }
        registry.register(task, for: self)
        task.resume()
    }

    /// Starts the idle and total timers.
    func startTimers() {
        if let deadline = original.deadline {
            timers.asyncAfter(deadline: .now() + deadline) { [weak self] in self?.timeOut() }
        }
        if let idle = original.idleTimeout { scheduleIdleCheck(after: idle) }
    }

    /// Cancels the network work; the promise is already cancelled.
    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.isFinished = true
            return Self.isBodyComplete(state) ? nil : state.task
        }
        Self.cancelIfRunning(task)
    }

    /// FoundationNetworking (6.3) can crash ("task that in not in the registry") when a task is
    /// cancelled just as it completes: leave tasks alone that are no longer running (callers
    /// also skip those whose body has fully arrived); their completion is ignored.
    private static func cancelIfRunning(_ task: URLSessionDataTask?) {
        if let task, task.state == .running || task.state == .suspended { task.cancel() }
    }

    /// The most memory reserved from a `Content-Length` before the bytes arrive.
    private static let largestReservation = 8 * 1024 * 1024

    private static func isBodyComplete(_ state: State) -> Bool {
        guard let response = state.response, response.expectedContentLength >= 0 else { return false }
        return Int64(state.data.count) >= response.expectedContentLength
    }

    private func timeOut() {
        fail { .timedOut(context: $0) }
    }

    private func scheduleIdleCheck(after delay: TimeInterval) {
        timers.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, let idle = original.idleTimeout else { return }
            let (finished, idleSince) = state.withLock { ($0.isFinished, $0.lastActivity) }
            guard !finished else { return }
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
        Self.cancelIfRunning(task)
        resolver.reject(makeError(context))
    }

    // MARK: Delegate events

    func received(_ response: HTTPURLResponse) {
        let tooLarge = state.withLock { state -> Bool in
            state.response = response
            state.lastActivity = .now()
            // A compressed body's Content-Length says nothing about its decoded size.
            let encoded =
                response.value(forHTTPHeaderField: "Content-Encoding").map { $0 != "identity" } ?? false
            let limit = original.maximumResponseBytes
            if !encoded, response.expectedContentLength > 0 {
                // Room for the announced body up front instead of regrowing chunk by chunk;
                // capped, because the header is only the server's word.
                let cap = min(limit ?? Int.max, Self.largestReservation)
                state.data.reserveCapacity(Int(min(response.expectedContentLength, Int64(cap))))
            }
            guard let limit, !encoded else { return false }
            return response.expectedContentLength > Int64(limit)
        }
        if tooLarge, let limit = original.maximumResponseBytes {
            fail { .responseTooLarge(limit: limit, context: $0) }
        }
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
        let snapshot = state.withLock { state -> State? in
            guard !state.isFinished, state.task === task else { return nil }
            if state.response == nil { state.response = task.response as? HTTPURLResponse }
            return state
        }
        guard let snapshot else { return }
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
        if isTruncated(response, snapshot.data) {
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
            startTask(in: session, registry: registry)
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

    /// A body shorter than its `Content-Length` (when not compressed, whose length is of the
    /// encoded bytes) is a dropped connection, never a success.
    private func isTruncated(_ response: HTTPURLResponse, _ data: Data) -> Bool {
        let encoded = response.value(forHTTPHeaderField: "Content-Encoding").map { $0 != "identity" } ?? false
        let method = state.withLock { $0.request.httpMethod ?? "GET" }
        guard !encoded, method != "HEAD", response.expectedContentLength >= 0 else { return false }
        return Int64(data.count) < response.expectedContentLength
    }
}
