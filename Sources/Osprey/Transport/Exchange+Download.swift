import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies that go to a ``DownloadSink`` instead of memory.
extension Exchange {
    /// Offers the final response to the sink; true when that ended the exchange.
    func beginSink(_ sink: any DownloadSink, for response: HTTPURLResponse) -> Bool {
        do {
            let accepted = try sink.begin(response)
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
