import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request after it was built, attempt by attempt: adapt → send → validate and parse →
/// retry or settle. Every step runs on the API's request queue, except that a small response may
/// be finished where the transport completed it (``InlineConclusion``).
///
/// The steps of an attempt read top to bottom in `RequestRun+Attempt.swift`; the end (settling
/// once, cancelling, the deadline) is here, and what monitors are told in `RequestRun+Events.swift`.
///
/// It owns what an attempt leaves behind (the exchange in flight, the adapters' promise, the
/// timer of a retry) so that `cancel()` can stop whichever is current, and it removes a
/// temporary body file once, after the last attempt.
final class RequestRun<Value: Sendable>: Sendable {
    typealias Decode = @Sendable (TransportResponse, any ResponseParser) throws -> Value

    struct State {
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

    let api: AbstractAPI
    let resolver: Resolver<Value>
    let decode: Decode
    let configuration: APIConfiguration
    let built: URLRequest
    let bodyFile: RequestDraft.BodyFile?
    let bodyStream: BodyStream?
    let idleTimeout: TimeInterval?
    /// The configuration's deadline, as applied (see `effectiveTimeout`).
    let deadline: TimeInterval?
    let started = DispatchTime.now()
    let state: Locked<State>
    let progress: ProgressChannel
    /// Where the body goes instead of memory: a file or a stream.
    let body: (any ResponseBodyPlan)?
    /// The monitors' events, one at a time and in order.
    let events = EventSequence()

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

    // MARK: The end

    /// 6. Settle the promise once, tell the monitors, and remove a temporary body file.
    /// `response` is the final one, if any: its `HTTPURLResponse` is made only for monitors.
    func finish(request: URLRequest, response: TransportResponse?, _ outcome: Result<Value, APIError>) {
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
    func cancel() {
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
    func expire() {
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
}
