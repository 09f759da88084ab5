import Foundation

/// A request body that an asynchronous sequence of `Data` produces, sent as it comes: an upload
/// generated on the fly, a file read by code of your own, a proxy's input. Give it to a request
/// with ``StreamParameters``.
///
/// With a ``length`` the request has a `Content-Length`, and the sequence must produce exactly
/// that many bytes: a byte beyond it is never sent (on a kept-alive connection it would be read
/// as the start of another request), and the request fails with ``BodyStreamLengthMismatch`` as
/// soon as the sequence overruns or ends short (a surplus that comes only after the response has
/// ended is neither sent nor reported: the request was framed and answered). Without one it is sent with chunked transfer coding on HTTP/1.1 (DATA
/// frames on HTTP/2). At most ``bufferSize`` bytes are read ahead of the network.
public struct BodyStream: Sendable {
    /// The body's length in bytes, when known.
    public let length: Int64?
    /// Whether the sequence can be made again, so that the request may be retried (or sent again
    /// after a `307`/`308` redirect).
    public let isReplayable: Bool
    /// The most bytes read ahead of the network.
    public let bufferSize: Int
    private let make: @Sendable () -> AsyncThrowingStream<Data, any Error>
    private let taken = Locked(false)

    /// A body read once from `pieces`: a request that needs it again (a retry, a `307`) fails
    /// instead.
    /// - Parameters:
    ///   - pieces: The body, piece by piece.
    ///   - length: The body's length, when known.
    ///   - bufferSize: The most bytes read ahead of the network.
    public init<Pieces: AsyncSequence & Sendable>(
        _ pieces: Pieces, length: Int64? = nil, bufferSize: Int = 1 << 20
    )
    where Pieces.Element == Data {
        self.init(length: length, isReplayable: false, bufferSize: bufferSize) { pieces }
    }

    /// A body made anew by `makePieces` for every attempt: a retry or a redirect sends it again.
    /// - Parameters:
    ///   - length: The body's length, when known.
    ///   - bufferSize: The most bytes read ahead of the network.
    ///   - makePieces: Makes the sequence of the body's pieces.
    public init<Pieces: AsyncSequence & Sendable>(
        length: Int64? = nil, bufferSize: Int = 1 << 20, makePieces: @escaping @Sendable () -> Pieces
    ) where Pieces.Element == Data {
        self.init(length: length, isReplayable: true, bufferSize: bufferSize, makePieces: makePieces)
    }

    private init<Pieces: AsyncSequence & Sendable>(
        length: Int64?, isReplayable: Bool, bufferSize: Int, makePieces: @escaping @Sendable () -> Pieces
    ) where Pieces.Element == Data {
        self.length = length
        self.isReplayable = isReplayable
        self.bufferSize = max(1, bufferSize)
        make = {
            let pieces = makePieces()
            return AsyncThrowingStream { continuation in
                let task = Task {
                    do {
                        for try await piece in pieces { continuation.yield(piece) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    /// The pieces for one attempt, or nil when a body read once was already taken.
    func makePieces() -> AsyncThrowingStream<Data, any Error>? {
        let first = taken.withLock { taken -> Bool in
            defer { taken = true }
            return !taken
        }
        return first || isReplayable ? make() : nil
    }
}

/// The body could not be sent again: it was read from a sequence once (see ``BodyStream``).
public struct BodyStreamConsumed: Error, Sendable, CustomStringConvertible {
    /// Says what happened.
    public var description: String {
        "the request's body stream was already sent and cannot be made again; use BodyStream(makePieces:) to allow retries"
    }
}
