import Foundation
import Promises

/// A response whose body is handed over as it arrives, with backpressure: when the reader is
/// slower than the network, at most ``bufferSize`` bytes wait and the transfer pauses until the
/// reader catches up. Made by ``AbstractAPI/stream(route:parameters:deadline:bufferSize:)``.
///
/// ```swift
/// let stream = api.stream(route: .get("https://api.example.com/logs"))
/// print(try await stream.response.statusCode)
/// for try await line in stream.lines { print(line) }
/// ```
///
/// The request goes through the whole pipeline up to the head (adapters, retries, redirects,
/// monitors); a status the API does not accept ends the stream with the same ``APIError`` a
/// plain request gets, its error body parsed. Read a stream once (as `Data` pieces, or through
/// ``lines``, ``events`` or one of the `on…` handlers); leaving the loop early, or ``cancel()``,
/// stops the transfer. A cancelled stream is not an error: the reading task throws
/// `CancellationError`, ``completion`` and the promises of the `on…` handlers settle as
/// cancelled (their `onError` handlers run only if registered `includingCancellation`). The
/// API's idle timeout applies between pieces; its total deadline does not, unless the call asks
/// for one.
///
/// In top-level code (`main.swift`), Swift 6.3 never destroys a `for` loop's iterator, so
/// leaving the loop with `break` cannot stop the transfer there: call ``cancel()`` before
/// `break`, or read in a function.
public final class ResponseStream: AsyncSequence, Sendable {
    /// A piece of the body.
    public typealias Element = Data

    /// The most bytes that wait for the reader before the transfer pauses.
    public let bufferSize: Int
    /// Settles when the body has fully arrived, or fails with what stopped it.
    public let completion: Promise<Void>
    let buffer: StreamBuffer
    private let defaultQueue: DispatchQueue
    /// The API's JSON decoder, which the events' ``ServerSentEvent/decode(_:)`` uses.
    let decoder: JSONDecoder?

    init(
        buffer: StreamBuffer, completion: Promise<Void>, defaultQueue: DispatchQueue,
        decoder: JSONDecoder? = nil
    ) {
        self.buffer = buffer
        bufferSize = buffer.capacity
        self.completion = completion
        self.defaultQueue = defaultQueue
        self.decoder = decoder
        // Every piece has been handed to the buffer by the time the request succeeds; a
        // cancellation reaches the reader as `CancellationError`. Not an observer: a chain the
        // user builds on `completion` may cancel it alone.
        completion.whenSettled(asObserver: false) { [buffer] result in buffer.finish(result) }
    }

    deinit {
        completion.cancel()
    }

    /// The response's head (status, headers, the final request), as soon as it has arrived.
    /// - Throws: What ended the stream before: an ``APIError`` (a status the API does not
    ///   accept, a transport error, a timeout), or `CancellationError` once it was cancelled.
    public var response: ResponseHead {
        get async throws {
            try await withTaskCancellationHandler {
                try await buffer.head()
            } onCancel: {
                self.cancel()
            }
        }
    }

    /// Stops the transfer; the reader gets `CancellationError`, and ``completion`` settles as
    /// cancelled.
    public func cancel() {
        completion.cancel()
    }

    /// Reads the pieces of the body in order.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads a ``ResponseStream``; dropping it before the end stops the transfer.
    public struct Iterator: AsyncIteratorProtocol {
        private let reading: Reading

        init(stream: ResponseStream) {
            reading = Reading(stream: stream)
        }

        /// The next piece, or nil once the body has ended.
        /// - Throws: What stopped the body.
        public mutating func next() async throws -> Data? {
            try await reading.next()
        }
    }

    /// One reader's progress: when it goes before the end, so does the transfer.
    final class Reading: Sendable {
        let stream: ResponseStream
        private let ended = Locked(false)

        init(stream: ResponseStream) {
            self.stream = stream
        }

        deinit {
            if !ended.withLock({ $0 }) { stream.cancel() }
        }

        func next() async throws -> Data? {
            do {
                let piece = try await withTaskCancellationHandler {
                    try await stream.buffer.next()
                } onCancel: { [stream] in
                    stream.cancel()
                }
                if piece == nil { ended.withLock { $0 = true } }
                return piece
            } catch {
                ended.withLock { $0 = true }
                throw error
            }
        }
    }

    /// The queue handlers run on when none is given (the API's response queue).
    var handlerQueue: DispatchQueue { defaultQueue }
}
