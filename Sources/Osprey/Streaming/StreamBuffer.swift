import Foundation

/// The pieces of a body between the transport that receives them and the code that reads them:
/// at most ``capacity`` bytes wait (beyond that the producer is told to stop until the reader has
/// taken half), one reader at a time, in order.
final class StreamBuffer: Sendable {
    fileprivate struct State {
        var head: ResponseHead?
        var pieces: [Data] = []
        var firstPiece = 0
        var bufferedBytes = 0
        /// nil while the body goes on; then the end, or why it stopped.
        var end: Result<Void, any Error>?
        var headWaiters: [CheckedContinuation<ResponseHead, any Error>] = []
        var reader: CheckedContinuation<Data?, any Error>?
        /// Set when a piece was refused: called once the reader caught up.
        var resume: (@Sendable () -> Void)?
    }

    /// The most bytes that wait for the reader before the producer must stop.
    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    // MARK: Producer (the transport)

    /// The head arrived and was accepted.
    func begin(_ head: ResponseHead) {
        let waiters = state.withLock { state -> [CheckedContinuation<ResponseHead, any Error>] in
            state.head = head
            defer { state.headWaiters = [] }
            return state.headWaiters
        }
        for waiter in waiters { waiter.resume(returning: head) }
    }

    /// Takes `bytes` unless ``capacity`` bytes already wait: then returns false and calls
    /// `resume` once the reader has taken enough (the bytes must be offered again).
    func offer(_ bytes: UnsafeRawBufferPointer, resume: @escaping @Sendable () -> Void) -> Bool {
        guard !bytes.isEmpty else { return true }
        let (accepted, handOver) = state.withLock {
            state -> (Bool, (CheckedContinuation<Data?, any Error>, Data)?) in
            guard state.end == nil else { return (true, nil) }
            if state.bufferedBytes >= capacity {
                state.resume = resume
                return (false, nil)
            }
            let piece = Data(bytes)
            if let reader = state.reader {
                state.reader = nil
                return (true, (reader, piece))
            }
            state.pieces.append(piece)
            state.bufferedBytes += piece.count
            return (true, nil)
        }
        if let (reader, piece) = handOver { reader.resume(returning: piece) }
        return accepted
    }

    /// Takes `data` whatever is waiting (for producers that cannot stop).
    func append(_ data: Data) {
        let reader = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil, !data.isEmpty else { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.pieces.append(data)
            state.bufferedBytes += data.count
            return nil
        }
        reader?.resume(returning: data)
    }

    /// The body ended, or stopped with an error; the reader gets what waits, then the end.
    func finish(_ outcome: Result<Void, any Error>) {
        let (reader, waiters) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, [CheckedContinuation<ResponseHead, any Error>])
            in
            guard state.end == nil else { return (nil, []) }
            state.end = outcome
            // The producer is done: nothing will be offered again.
            state.resume = nil
            let waiters = state.headWaiters
            state.headWaiters = []
            // A waiting reader has nothing before the end (pieces would have gone to it).
            let reader = state.reader
            state.reader = nil
            return (reader, waiters)
        }
        switch outcome {
        case .success:
            reader?.resume(returning: nil)
            for waiter in waiters { waiter.resume(throwing: StreamEndedWithoutHead()) }
        case .failure(let error):
            reader?.resume(throwing: error)
            for waiter in waiters { waiter.resume(throwing: error) }
        }
    }

    // MARK: Reader

    /// The head, once it arrived; throws what ended the stream before one did.
    func head() async throws -> ResponseHead {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<ResponseHead, any Error>? in
                if let head = state.head { return .success(head) }
                switch state.end {
                case .failure(let error): return .failure(error)
                case .success: return .failure(StreamEndedWithoutHead())
                case nil:
                    state.headWaiters.append(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The next piece, or nil at the end; throws what stopped the body.
    func next() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let (ready, resume) = state.withLock {
                state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
                if state.firstPiece < state.pieces.count {
                    let piece = state.takeFirstPiece()
                    // Half the room free again: the producer may go on.
                    guard state.bufferedBytes <= capacity / 2, let resume = state.resume else {
                        return (.success(piece), nil)
                    }
                    state.resume = nil
                    return (.success(piece), resume)
                }
                switch state.end {
                case .success: return (.success(nil), nil)
                case .failure(let error): return (.failure(error), nil)
                case nil:
                    state.reader = continuation
                    return (nil, nil)
                }
            }
            resume?()
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// How many bytes wait for the reader (tests).
    var waitingBytes: Int { state.withLock { $0.bufferedBytes } }

    /// How many bytes the buffer holds on to, read or not (tests: memory, not bookkeeping).
    var heldBytes: Int { state.withLock { $0.pieces.reduce(0) { $0 + $1.count } } }
}

extension StreamBuffer.State {
    /// Takes the first waiting piece. Its slot lets go of the bytes at once, and the slots
    /// already read are dropped once they are half the array: a reader that never quite catches
    /// up (the producer resumes at half the capacity) must not keep every piece it has read.
    mutating func takeFirstPiece() -> Data {
        let piece = pieces[firstPiece]
        pieces[firstPiece] = Data()
        firstPiece += 1
        bufferedBytes -= piece.count
        if firstPiece == pieces.count {
            pieces.removeAll(keepingCapacity: true)
            firstPiece = 0
        } else if firstPiece >= 16, firstPiece * 2 >= pieces.count {
            pieces.removeFirst(firstPiece)
            firstPiece = 0
        }
        return piece
    }
}

/// The stream ended before its head arrived.
struct StreamEndedWithoutHead: Error {}
