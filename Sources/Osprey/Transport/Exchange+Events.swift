import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the session delegate reports for the exchange's tasks, as they happen, up to the delivery
/// of the response.
extension Exchange {
    func received(_ response: HTTPURLResponse) {
        cookies?.keep(from: response)
        let isFinal = !original.willFollow(response)
        let verdict = state.withLock { state -> FramingVerdict in
            state.response = response
            state.lastActivity = .now()
            state.headArrived = state.lastActivity
            state.isFinalResponse = isFinal
            let verdict = self.original.framingVerdict(on: response, method: state.request.httpMethod)
            if case .accept(let length?) = verdict {
                state.bodyLength = length
            }
            return verdict
        }
        guard case .accept(let length) = verdict else { return reject(verdict) }
        if isFinal, let sink = original.downloadSink, beginSink(sink, for: response) { return }
        if let length {
            // Room for the announced body up front instead of regrowing chunk by chunk; capped,
            // because the header is only the server's word.
            let cap = min(original.maximumResponseBytes ?? Int.max, Self.largestReservation)
            state.withLock { $0.data.reserveCapacity(Int(min(length, Int64(cap)))) }
        }
    }

    /// Body bytes went out: the exchange is making progress, whatever the server says later.
    func sentBodyData(total: Int64, expected: Int64) {
        let known = state.withLock { state -> Int64? in
            state.lastActivity = .now()
            state.bodySent = total
            return state.uploadLength
        }
        original.progress?(.upload, total, expected > 0 ? expected : known)
    }

    func received(_ data: Data) {
        let outcome = state.withLock { state -> Received in
            // After a failure or cancellation FoundationNetworking may still deliver queued
            // chunks: drop them rather than keep growing.
            guard !state.isFinished else { return .dropped }
            state.bodyBytes += Int64(data.count)
            state.lastActivity = .now()
            if state.sinking {
                let limit = original.downloadSink?.maximumBytes
                if let limit, state.bodyBytes > limit { return .tooLarge(limit) }
            } else {
                state.data.append(data)
                if let limit = original.maximumResponseBytes, state.data.count > limit {
                    return .tooLarge(Int64(limit))
                }
            }
            guard state.isFinalResponse else { return .kept(progress: nil) }
            let offset = state.sinking ? original.downloadSink?.startOffset ?? 0 : 0
            return .kept(
                progress: (offset + state.bodyBytes, state.bodyLength.map { offset + $0 }, state.sinking))
        }
        switch outcome {
        case .dropped:
            return
        case .tooLarge(let limit):
            fail { .responseTooLarge(limit: Int(clamping: limit), context: $0) }
        case .kept(let progress):
            if let progress, progress.sinking, let flow = original.downloadSink as? any FlowControlledSink {
                offer(data, to: flow)
            } else if let progress, progress.sinking, let sink = original.downloadSink {
                do {
                    try sink.write(data)
                } catch {
                    return fail {
                        .fileFailed(reason: "could not write the download", underlying: error, context: $0)
                    }
                }
            }
            if let progress { original.progress?(.download, progress.completed, progress.expected) }
        }
    }

    /// What became of a piece of the body.
    enum Received {
        case dropped
        case tooLarge(Int64)
        case kept(progress: (completed: Int64, expected: Int64?, sinking: Bool)?)
    }

    /// URLSession's measurements of `task`, which come just before it completes (Apple platforms).
    func collected(_ metrics: URLSessionTaskMetrics, of task: URLSessionTask) {
        let measured = RequestMetrics(metrics)
        state.withLock { state in
            if state.task === task { state.collected = measured }
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
            cookies?.keep(from: response)
            let verdict = self.original.framingVerdict(on: response, method: state.request.httpMethod)
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
        if let length = snapshot.bodyLength, snapshot.bodyBytes < length {
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
                state.hops.append(TransportResponse(hop: .made(response), request: state.request))
                state.request = next
                state.redirects += 1
            }
            startTaskLater(in: session, registry: registry)
        }
    }

    private func deliver(_ response: HTTPURLResponse, _ snapshot: State) {
        if snapshot.sinking, let sink = original.downloadSink {
            do {
                try sink.end()
            } catch {
                return fail {
                    .fileFailed(reason: "could not finish the download", underlying: error, context: $0)
                }
            }
        }
        let (first, armed) = state.withLock { state -> (Bool, Bool) in
            defer {
                state.isFinished = true
                state.gateArmed = false
            }
            return (!state.isFinished, state.gateArmed)
        }
        if armed { gate?.disarm() }
        if first {
            var delivered = TransportResponse(
                response: response, data: snapshot.data, request: snapshot.request,
                bodyWentToSink: snapshot.sinking)
            delivered.metrics = metrics(of: snapshot)
            delivered.redirects = snapshot.hops
            resolver.fulfill(delivered)
        }
    }

    /// The delivered hop's metrics: URLSession's where it collected them, else the times and
    /// body sizes the exchange saw itself (FoundationNetworking reports no phases).
    private func metrics(of snapshot: State) -> RequestMetrics {
        let now = DispatchTime.now()
        func seconds(until end: DispatchTime) -> TimeInterval {
            Double(end.uptimeNanoseconds &- snapshot.hopStarted.uptimeNanoseconds) / 1e9
        }
        var metrics =
            snapshot.collected
            ?? RequestMetrics(
                firstByte: seconds(until: snapshot.headArrived ?? now), total: seconds(until: now),
                bytesSent: max(snapshot.bodySent, Int64(snapshot.request.httpBody?.count ?? 0)),
                bytesReceived: snapshot.bodyBytes, reusedConnection: nil, httpVersion: nil)
        metrics.redirects = snapshot.redirects
        return metrics
    }

}
