import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies that go to a ``DownloadSink`` instead of memory.
extension Exchange {
    /// Offers the final response to the sink; true when that ended the exchange.
    func beginSink(_ sink: any DownloadSink, for response: HTTPURLResponse) -> Bool {
        do {
            let accepted: Bool
            if let flow = sink as? any FlowControlledSink {
                accepted = try flow.begin(response, request: state.withLock { $0.request })
            } else {
                accepted = try sink.begin(response)
            }
            // A body going to disk holds FoundationNetworking back when the disk falls behind.
            if accepted { gate?.arm() }
            let stillRunning = state.withLock { state -> Bool in
                state.sinkBegun = true
                state.sinking = accepted
                state.gateArmed = accepted && !state.isFinished
                return !state.isFinished
            }
            if accepted, !stillRunning { gate?.disarm() }
            // Cancelled while the sink was opening: nothing else will abandon it.
            if !stillRunning { sink.abandon() }
            return !stillRunning
        } catch {
            fail { context in
                error as? APIError ?? .transport(underlying: error, context: context)
            }
            return true
        }
    }
}

/// Bodies that go to a stream, whose reader may fall behind.
extension Exchange {
    /// Hands `data` to the stream. URLSession cannot give a piece back, so a piece the stream
    /// refuses (its reader is behind) is still kept, and then:
    /// - on Apple platforms, the task is suspended until the reader has caught up;
    /// - on Linux nothing can hold one transfer back: FoundationNetworking's `resume()` after
    ///   `suspend()` sends the request again (a 32 MiB stream read that way delivered 60 MB), and
    ///   waiting in the delegate callback holds up FoundationNetworking's work queue, which every
    ///   session of the process shares. So pieces are kept while the reader is behind, up to
    ///   ``FlowControlledSink/hardLimit``; beyond it the stream fails, and memory stays bounded.
    func offer(_ data: Data, to flow: any FlowControlledSink) {
        let accepted = data.withUnsafeBytes { bytes in
            flow.offer(bytes) { [weak self] in self?.resumeForReader() }
        }
        guard !accepted else { return }
        try? flow.write(data)
        #if canImport(FoundationNetworking)
            if flow.waitingBytes > flow.hardLimit {
                let limit = flow.hardLimit
                fail { context in
                    .transport(
                        underlying: URLError(
                            .dataLengthExceedsMaximum,
                            userInfo: [
                                NSLocalizedDescriptionKey:
                                    "the stream's reader fell \(limit) bytes behind; URLSessionTransport on Linux "
                                    + "cannot pause a transfer (CurlTransport can)"
                            ]), context: context)
                }
            }
        #else
            let task = state.withLock { state -> URLSessionDataTask? in
                guard !state.isFinished, !state.suspendedForReader else { return nil }
                state.suspendedForReader = true
                return state.task
            }
            if let task { flowControl?.async { task.suspend() } }
        #endif
    }

    /// The stream's reader caught up: the task goes on.
    private func resumeForReader() {
        let task = state.withLock { state -> URLSessionDataTask? in
            guard state.suspendedForReader else { return nil }
            state.suspendedForReader = false
            state.lastActivity = .now()
            return state.isFinished ? nil : state.task
        }
        if let task { flowControl?.async { task.resume() } }
    }
}
