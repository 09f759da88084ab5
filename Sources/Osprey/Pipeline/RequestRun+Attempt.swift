import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt, steps 3 to 5 of the pipeline: adapt, send, then validate and parse or retry.
extension RequestRun {
    /// 3. Adapt the request (tokens, headers; possibly asynchronously), then send it.
    func attempt() {
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
    func send(_ adapted: URLRequest) {
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

    func transmit(_ request: URLRequest) {
        let remaining = deadline.map { $0 - elapsed }
        if let remaining, remaining <= 0 {
            return finish(
                request: request, response: nil, .failure(.timedOut(context: .init(request: request))))
        }
        var transportRequest = TransportRequest(
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
        transportRequest.settlesOnTransportThread = configuration.completesOnTransportThread
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
    func receive(_ result: Result<TransportResponse, any Error>, for request: URLRequest, number: Int) {
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
    ///
    /// An API that completes on the transport's thread (``APIConfiguration/completesOnTransportThread``)
    /// finishes every outcome here, monitors and retry decisions included, with no budget: it
    /// vouched for its work being quick. Bodies past the limit, sinks and temporary files still hop.
    func concludeInline(
        _ result: Result<TransportResponse, any Error>, for request: URLRequest, number: Int
    ) -> Bool {
        if configuration.completesOnTransportThread {
            if case .success(let exchange) = result,
                exchange.bodyWentToSink || body != nil || exchange.data.count > InlineConclusion.bodyLimit
            {
                return false
            }
            guard bodyFile?.isTemporary != true else { return false }
            receive(result, for: request, number: number)
            return true
        }
        guard api.transportSettlesOnItsOwnQueue, case .success(let exchange) = result,
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
    func outcome(of result: Result<TransportResponse, any Error>, for request: URLRequest)
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
    func conclude(
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
    func restartsDownload(after error: APIError) -> Bool {
        guard case .transport(let underlying, _) = error, underlying is DownloadRestart else { return false }
        return state.withLock { state in
            guard !state.restarted, !state.isCancelled else { return false }
            state.restarted = true
            state.exchange = nil
            return true
        }
    }

    /// The policy's delay, unless the next attempt could not start before the deadline.
    func retryDelay(after error: APIError, request: URLRequest, number: Int) -> TimeInterval? {
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
}
