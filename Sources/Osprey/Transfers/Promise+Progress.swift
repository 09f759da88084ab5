import Dispatch
import Promises

extension Promise {
    /// Runs `handler` with each progress report of the request this promise comes from: bytes
    /// sent, then bytes received.
    ///
    /// Reports are coalesced (about 60 a second at most per direction, plus the last), never go
    /// backwards within an attempt, start again from zero on a retry (``TransferProgress/attempt``
    /// says which), end at the total when it is known, and stop once the promise is settled or
    /// cancelled. A handler added late first gets the latest report (once the request has
    /// succeeded, its last report, and nothing more). Only promises an API
    /// returns report progress; on others, `handler` is never called.
    /// - Parameters:
    ///   - queue: Where `handler` runs; the API's response queue when nil.
    ///   - handler: Receives each report.
    /// - Returns: This promise, to chain other handlers.
    @discardableResult
    public func onProgress(
        in queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (TransferProgress) -> Void
    ) -> Promise<Value> {
        progressChannel?.add(queue: queue, handler)
        return self
    }

    /// Runs a main-actor `handler` with each progress report (see
    /// ``onProgress(in:_:)-(DispatchQueue?,_)``).
    /// - Parameters:
    ///   - queue: `.main`.
    ///   - handler: Receives each report on the main actor.
    /// - Returns: This promise, to chain other handlers.
    @discardableResult
    public func onProgress(
        in queue: MainActorQueue = .main,
        _ handler: @escaping @MainActor (TransferProgress) -> Void
    ) -> Promise<Value> {
        progressChannel?.add(queue: .main) { report in
            MainActor.assumeIsolated { handler(report) }
        }
        return self
    }

    /// The channel of the request this promise comes from, unless the promise has failed or been
    /// cancelled: its request may not have closed the channel yet (a cancelled URLSession task
    /// ends a little later), and its handlers get nothing more.
    private var progressChannel: ProgressChannel? {
        guard let channel = attachment as? ProgressChannel else { return nil }
        if case .failure? = currentResult { return nil }
        return channel
    }
}
