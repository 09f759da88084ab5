import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request after it was built, attempt by attempt: adapt → send → validate and parse →
/// retry or settle. Reads top to bottom; every step runs on the API's request queue, except that
/// a small response may be finished where the transport completed it (``InlineConclusion``).
///
/// It owns what an attempt leaves behind (the exchange in flight, the adapters' promise, the
/// timer of a retry) so that `cancel()` can stop whichever is current, and it removes a
/// temporary body file once, after the last attempt.
final class RequestRun<Value: Sendable>: Sendable {
    typealias Decode = @Sendable (TransportResponse, any ResponseParser) throws -> Value

    private struct State {
        var adapting: Promise<URLRequest>?
        var exchange: Promise<TransportResponse>?
        var retry: DispatchWorkItem?
        var failures: [APIError] = []
        var request: URLRequest
        var attempt = 0
        var isCancelled = false
        var isFinished = false
        /// Whether a download already started again from zero (it does so at most once).
        var restarted = false
        /// Whether a download waits for its partial file (see ``DownloadPlan/prepare(_:then:)``).
        var waitsForFile = false
        /// Whether the monitors heard the outcome: a progress report that lost the race with it
        /// is not told after it.
        var outcomeNotified = false
    }

    private let api: AbstractAPI
    private let resolver: Resolver<Value>
    private let decode: Decode
    private let configuration: APIConfiguration
    private let built: URLRequest
    private let bodyFile: RequestDraft.BodyFile?
    private let bodyStream: BodyStream?
    private let idleTimeout: TimeInterval?
    /// The configuration's deadline, as applied (see `effectiveTimeout`).
    private let deadline: TimeInterval?
    private let started = DispatchTime.now()
    private let state: Locked<State>
    private let progress: ProgressChannel
    /// Where the body goes instead of memory: a file or a stream.
    private let body: (any ResponseBodyPlan)?
    /// The monitors' events, one at a time and in order.
    private let events = EventSequence()

    init(
        api: AbstractAPI,
        resolver: Resolver<Value>,
        request: URLRequest,
        bodyFile: RequestDraft.BodyFile?,
        bodyStream: BodyStream? = nil,
        idleTimeout: TimeInterval?,
        configuration: APIConfiguration,
        progress: ProgressChannel,
        body: (any ResponseBodyPlan)?,
        decode: @escaping Decode
    ) {
        self.api = api
        self.resolver = resolver
        self.decode = decode
        self.configuration = configuration
        built = request
        self.bodyFile = bodyFile
        self.bodyStream = bodyStream
        self.idleTimeout = effectiveTimeout(idleTimeout)
        deadline = effectiveTimeout(configuration.deadline)
        self.progress = progress
        self.body = body
        state = Locked(State(request: request))
    }

    /// Starts the first attempt; `cancel()` stops the run at any point, and so does the
    /// deadline, whatever is current (an adapter that never answers included).
    func start() {
        resolver.onCancel { [self] in cancel() }
        if !configuration.monitors.isEmpty {
            // Reports come from the transport's delegate queue: monitors hear them on the request
            // queue, where user code cannot hold up every transfer.
            // They are recorded in order now, so that the outcome, recorded later, reaches the
            // monitors after them.
            progress.setMonitor { [weak self] report in
                guard let self else { return }
                events.record { self.notifyProgress(report) }
                api.requestQueue.async { self.events.drain() }
            }
        }
        if let deadline {
            // Weak: a finished run need not live until its deadline.
            api.requestQueue.asyncAfter(deadline: started + deadline) { [weak self] in self?.expire() }
        }
        attempt()
    }

    // MARK: One attempt

    /// 3. Adapt the request (tokens, headers; possibly asynchronously), then send it.
    private func attempt() {
        state.withLock { $0.retry = nil }
        let adapters = configuration.adapters
        guard !adapters.isEmpty else { return send(built) }
        let earlier = state.withLock { $0.failures }
        // Detached: an adapter's promise may be shared (a token refresh other requests wait
        // for), and cancelling this request must only stop it waiting.
        let adapting = adapters.reduce(Promise(value: built)) { request, adapter in
            request.then(in: api.requestQueue) { adapter.adapt($0, earlier: earlier).detached() }
        }
        let stored = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.adapting = adapting
            return true
        }
        guard stored else {
            adapting.cancel()
            return finish(request: built, response: nil, .failure(.cancelled))
        }
        adapting.onResult(in: api.requestQueue) { [self] result in
            do {
                let request = CredentialScope.limit(
                    try result.get(), built: built, to: apiOrigin, declared: configuration.sensitiveHeaders)
                try HTTPHeaders(request.allHTTPHeaderFields ?? [:]).validate()
                send(request)
            } catch {
                finish(request: built, response: nil, .failure(Self.adaptationError(error)))
            }
        }
    }

    /// 4. Send the attempt through the transport, within what is left of the deadline. A
    /// download first waits for its partial file (an earlier download to the same place may be
    /// writing its last bytes), then asks only for the bytes it does not have yet.
    private func send(_ adapted: URLRequest) {
        guard let body else { return transmit(adapted) }
        state.withLock { $0.waitsForFile = true }
        body.prepare(adapted) { [self] request, waited in
            guard
                state.withLock({ state in
                    defer { state.waitsForFile = false }
                    return state.waitsForFile
                })
            else { return }
            if waited {
                api.requestQueue.async { self.transmit(request) }
            } else {
                transmit(request)
            }
        }
    }

    private func transmit(_ request: URLRequest) {
        let remaining = deadline.map { $0 - elapsed }
        if let remaining, remaining <= 0 {
            return finish(
                request: request, response: nil, .failure(.timedOut(context: .init(request: request))))
        }
        let transportRequest = TransportRequest(
            urlRequest: request,
            bodyFileURL: bodyFile?.url,
            bodyStream: bodyStream,
            idleTimeout: idleTimeout,
            deadline: remaining,
            maximumResponseBytes: configuration.maximumResponseBytes,
            redirectPolicy: configuration.redirectPolicy,
            sensitiveHeaders: configuration.sensitiveHeaders,
            progress: { [progress] direction, completed, expected in
                progress.report(direction, completed: completed, expected: expected)
            },
            downloadSink: body
        )
        let number = state.withLock { state -> Int? in
            guard !state.isCancelled else { return nil }
            state.attempt += 1
            state.request = request
            return state.attempt
        }
        guard let number else { return finish(request: request, response: nil, .failure(.cancelled)) }
        progress.startAttempt(number)
        notify(.started, request: request, response: nil, attempt: number)
        let exchange =
            configuration.cache?.send(transportRequest, through: api.transport)
            ?? api.transport.send(transportRequest)
        if !state.withLock({ state in
            guard !state.isCancelled else { return false }
            state.exchange = exchange
            return true
        }) {
            exchange.cancel()
        }
        exchange.whenSettled { [self] result in
            // 5. Where the transport completed: a small body that has fully arrived is finished
            // right here, a hop saved; anything else goes to the request queue.
            if !concludeInline(result, for: request, number: number) {
                api.requestQueue.async { self.receive(result, for: request, number: number) }
            }
        }
    }

    /// 5. Validate and parse, or let the retry policy send the request again.
    private func receive(_ result: Result<TransportResponse, any Error>, for request: URLRequest, number: Int)
    {
        conclude(
            outcome(of: result, for: request), response: try? result.get(), for: request,
            number: number)
    }

    /// Finishes a success where the transport completed it, when that is short work that holds no
    /// one up: a transport that settles on a queue of its own, a body of at most
    /// ``InlineConclusion/bodyLimit`` in memory, no monitors or temporary file (user code and file
    /// work stay on the request queue), and an API whose recent inline work was quick. A failure
    /// found here (a status, a parsing error) goes on to the request queue with its outcome, for
    /// the retry policy. Returns false, having done nothing, when the response must hop.
    private func concludeInline(
        _ result: Result<TransportResponse, any Error>, for request: URLRequest, number: Int
    ) -> Bool {
        guard api.transport is any SettlesOnItsOwnQueue, case .success(let exchange) = result,
            !exchange.bodyWentToSink, body == nil, exchange.data.count <= InlineConclusion.bodyLimit,
            configuration.monitors.isEmpty, bodyFile?.isTemporary != true,
            api.inlineConclusion.allowsInlineWork()
        else { return false }
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = outcome(of: result, for: request)
        api.inlineConclusion.record(nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
        guard case .success = outcome else {
            api.requestQueue.async { [self] in
                conclude(outcome, response: exchange, for: request, number: number)
            }
            return true
        }
        finish(request: request, response: exchange, outcome)
        return true
    }

    /// The response validated and parsed, or the error it ends with.
    private func outcome(of result: Result<TransportResponse, any Error>, for request: URLRequest)
        -> Result<Value, APIError>
    {
        do {
            return .success(try api.handle(result.get(), decode: decode))
        } catch {
            return .failure(
                error as? APIError
                    ?? (error is CancellationError
                        ? .cancelled : .transport(underlying: error, context: .init(request: request))))
        }
    }

    /// Settles with the outcome, or lets the retry policy send the request again.
    private func conclude(
        _ outcome: Result<Value, APIError>, response: TransportResponse?, for request: URLRequest, number: Int
    ) {
        if case .failure(let error) = outcome, restartsDownload(after: error) {
            // The partial file could not be continued (and is gone): ask for everything, once.
            return attempt()
        }
        if case .failure(let error) = outcome,
            let delay = retryDelay(after: error, request: request, number: number)
        {
            let retry = DispatchWorkItem { [self] in self.attempt() }
            let scheduled = state.withLock { state -> Bool in
                guard !state.isCancelled else { return false }
                state.exchange = nil
                state.retry = retry
                state.failures.append(error)
                return true
            }
            guard scheduled else { return finish(request: request, response: response, .failure(.cancelled)) }
            notify(
                .retrying(after: error, delay: delay), request: request, response: response, attempt: number)
            api.requestQueue.asyncAfter(deadline: .now() + delay, execute: retry)
            return
        }
        finish(request: request, response: response, outcome)
    }

    /// Whether `error` says a download must start again from zero, and it has not yet done so.
    private func restartsDownload(after error: APIError) -> Bool {
        guard case .transport(let underlying, _) = error, underlying is DownloadRestart else { return false }
        return state.withLock { state in
            guard !state.restarted, !state.isCancelled else { return false }
            state.restarted = true
            state.exchange = nil
            return true
        }
    }

    /// The policy's delay, unless the next attempt could not start before the deadline.
    private func retryDelay(after error: APIError, request: URLRequest, number: Int) -> TimeInterval? {
        if case .cancelled = error { return nil }
        // A body read once from a sequence cannot be sent again.
        guard let policy = configuration.retryPolicy, body?.allowsRetry ?? true,
            bodyStream?.isReplayable ?? true
        else { return nil }
        let earlier = state.withLock { $0.failures }
        guard
            let proposed = policy.retryDelay(
                after: error, earlier: earlier, request: request, attempt: number)
        else { return nil }
        // A delay that cannot be waited for (infinite, NaN) gives up like one past the deadline.
        guard proposed.isFinite else { return nil }
        let delay = max(0, proposed)
        if let deadline, elapsed + delay >= deadline { return nil }
        return delay
    }

    // MARK: The end

    /// 6. Settle the promise once, tell the monitors, and remove a temporary body file.
    /// `response` is the final one, if any: its `HTTPURLResponse` is made only for monitors.
    private func finish(request: URLRequest, response: TransportResponse?, _ outcome: Result<Value, APIError>)
    {
        let attempt = state.withLock { state -> Int? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.exchange = nil
            state.adapting = nil
            state.retry = nil
            return state.attempt
        }
        guard let attempt else { return }
        // The temporary body goes right after the promise settles, still in this block (so a
        // barrier on the request queue sees it gone): deleting a large file takes a while
        // that the caller need not wait for.
        defer {
            if let bodyFile, bodyFile.isTemporary {
                try? FileManager.default.removeItem(at: bodyFile.url)
            }
        }
        defer { ProgressChannels.remove(resolver.identity) }
        defer { body?.requestEnded() }
        switch outcome {
        case .success:
            // The last reports go out before the promise settles (on a serial queue, first).
            progress.finish()
        case .failure:
            progress.close()
        }
        // Monitors hear the outcome after every event recorded before it, then the promise
        // settles: here, or on the thread that is telling them an earlier event.
        let conclude: @Sendable () -> Void = { [self] in
            // Cancelled while the body was being parsed: monitors hear what the caller sees.
            let cancelled = !resolver.isPending
            state.withLock { $0.outcomeNotified = true }
            switch outcome {
            case .success(let value):
                deliver(
                    cancelled ? .cancelled : .succeeded, request: request, response: response,
                    attempt: attempt)
                resolver.fulfill(value)
            case .failure(.cancelled):
                deliver(.cancelled, request: request, response: response, attempt: attempt)
                resolver.cancel()
            case .failure(let error):
                deliver(
                    cancelled ? .cancelled : .failed(error), request: request, response: response,
                    attempt: attempt)
                resolver.reject(api.mapError(error))
            }
        }
        if configuration.monitors.isEmpty { conclude() } else { events.run(conclude) }
    }

    /// Stops whatever is current: the adapters, the exchange, or the wait before a retry.
    private func cancel() {
        let (adapting, exchange, retry, waitsForFile, request) = state.withLock { state in
            state.isCancelled = true
            defer { state.waitsForFile = false }
            return (state.adapting, state.exchange, state.retry, state.waitsForFile, state.request)
        }
        adapting?.cancel()
        exchange?.cancel()
        retry?.cancel()
        if retry != nil || waitsForFile {
            // Waiting for a retry or for the partial file: nothing else will report the end.
            api.requestQueue.async { [self] in finish(request: request, response: nil, .failure(.cancelled)) }
        }
    }

    /// The deadline passed: fail with `timedOut` first, then stop whatever is current.
    private func expire() {
        let current = state.withLock {
            state -> (Promise<URLRequest>?, Promise<TransportResponse>?, DispatchWorkItem?, URLRequest)? in
            guard !state.isFinished else { return nil }
            state.isCancelled = true
            state.waitsForFile = false
            return (state.adapting, state.exchange, state.retry, state.request)
        }
        guard let (adapting, exchange, retry, request) = current else { return }
        finish(request: request, response: nil, .failure(.timedOut(context: .init(request: request))))
        adapting?.cancel()
        exchange?.cancel()
        retry?.cancel()
    }

    // MARK: Helpers

    /// The origin adapters' credentials are kept on: the base URL's, for a ``BaseAPI``.
    private var apiOrigin: URL? {
        (api as? any BaseAPI).flatMap { URL(string: $0.baseURL) }
    }

    private var elapsed: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    }

    /// Tells the monitors, in order with the request's other events.
    private func notify(
        _ kind: APIEvent.Kind, request: URLRequest, response: TransportResponse?, attempt: Int
    ) {
        guard !configuration.monitors.isEmpty else { return }
        events.run { [self] in deliver(kind, request: request, response: response, attempt: attempt) }
    }

    /// Tells the monitors now (from the event sequence).
    private func deliver(
        _ kind: APIEvent.Kind, request: URLRequest, response: TransportResponse?, attempt: Int
    ) {
        let monitors = configuration.monitors
        guard !monitors.isEmpty else { return }
        var event = APIEvent(
            kind: kind, request: request, response: response?.response, attempt: attempt, elapsed: elapsed,
            sensitiveHeaders: configuration.sensitiveHeaders, metrics: response?.metrics,
            cacheStatus: response?.cacheStatus)
        event.cacheNote = response?.cacheNote
        if let response, !response.bodyWentToSink { event.responseBody = response.data }
        if let response { event.redirects = response.redirects }
        for monitor in monitors { monitor.receive(event) }
    }

    private func notifyProgress(_ report: TransferProgress) {
        let (request, ended) = state.withLock { ($0.request, $0.outcomeNotified) }
        guard !ended else { return }
        deliver(.progress(report), request: request, response: nil, attempt: report.attempt)
    }

    private static func adaptationError(_ error: any Error) -> APIError {
        if error is CancellationError { return .cancelled }
        if let error = error as? APIError { return error }
        return .adaptationFailed(underlying: error)
    }
}
