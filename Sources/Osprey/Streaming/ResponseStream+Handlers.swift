import Foundation
import Promises

/// Osprey's way to read a stream: a handler per piece, on the queue of your choice.
extension ResponseStream {
    /// Runs `handler` for each piece of the body, in order, on `queue` (the API's response queue
    /// by default), the next piece only once the handler has returned.
    /// - Returns: A promise that settles when the body has ended (or fails with what stopped it);
    ///   cancelling it, or the end of a chain built on it, stops the transfer. A cancelled stream
    ///   settles it as cancelled, not failed.
    @discardableResult
    public func onChunk(in queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (Data) -> Void)
        -> Promise<Void>
    {
        forEach(of: self, on: queue, handler)
    }

    /// Runs `handler` for each text line of the body (see ``lines``), in order, on `queue`.
    /// - Returns: A promise that settles when the body has ended; cancelling it stops the transfer.
    @discardableResult
    public func onLine(in queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (String) -> Void)
        -> Promise<Void>
    {
        forEach(of: lines, on: queue, handler)
    }

    /// Runs `handler` for each server-sent event of the body (see ``events``), in order, on
    /// `queue`.
    /// - Returns: A promise that settles when the body has ended; cancelling it stops the transfer.
    @discardableResult
    public func onEvent(
        in queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (ServerSentEvent) -> Void
    )
        -> Promise<Void>
    {
        forEach(of: events, on: queue, handler)
    }

    private func forEach<Pieces: AsyncSequence & Sendable>(
        of pieces: Pieces, on queue: DispatchQueue?, _ handler: @escaping @Sendable (Pieces.Element) -> Void
    ) -> Promise<Void> where Pieces.Element: Sendable {
        let queue = queue ?? handlerQueue
        let promise = Promise<Void>(defaultQueue: queue) {
            for try await piece in pieces {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    queue.async {
                        handler(piece)
                        done.resume()
                    }
                }
            }
        }
        // Not an observer: cancelling a chain built on the promise (`onEvent { … }.onError { … }`)
        // cancels the promise, whose task's cancellation stops the transfer.
        promise.whenSettled(asObserver: false) { [self] result in
            if case .failure(let error) = result, error is CancellationError { cancel() }
        }
        return promise
    }
}
