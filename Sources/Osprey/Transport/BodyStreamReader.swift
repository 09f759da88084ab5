import Foundation

/// Reads a ``BodyStream``'s pieces ahead of the network, at most its buffer size, for a transport
/// that asks for bytes when it can send them (libcurl's read callback): ``read(into:)`` never
/// waits; when nothing is ready it says so, and `wake` is called once something is.
///
/// A declared length is the body's framing, so no byte beyond it is ever handed to the transport:
/// a sequence that overruns it fails at once (`overran` is called, and every later read throws)
/// without its surplus, which on a kept-alive connection would be read as the next request.
package final class BodyStreamReader: Sendable {
    /// What a read found.
    package enum Read: Equatable {
        case bytes(Int)
        /// Nothing yet: ask again after `wake`.
        case wait
        case end
    }

    private struct State {
        var pieces: [Data] = []
        var offset = 0
        var buffered = 0
        var produced: Int64 = 0
        var isFinished = false
        var failure: (any Error)?
        /// Set when the sequence produced more than its declared length: every read fails.
        var overrun: BodyStreamLengthMismatch?
        var wantsData = false
        /// The producer, waiting for room.
        var producer: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())
    private let bufferSize: Int
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    /// Starts reading `pieces`; `wake` is called (from any thread) when bytes became ready for a
    /// reader that was told to wait.
    package init(
        pieces: AsyncThrowingStream<Data, any Error>, length: Int64?, bufferSize: Int,
        wake: @escaping @Sendable () -> Void,
        overran: @escaping @Sendable (BodyStreamReader, BodyStreamLengthMismatch) -> Void = { _, _ in }
    ) {
        self.bufferSize = bufferSize
        let started = Task { [state, bufferSize, weak self] in
            var failure: (any Error)?
            do {
                for try await piece in pieces where !piece.isEmpty {
                    await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
                        let full = state.withLock { state -> Bool in
                            guard state.buffered >= bufferSize, !Task.isCancelled else { return false }
                            state.producer = room
                            return true
                        }
                        if !full { room.resume() }
                    }
                    if Task.isCancelled { return }
                    let overrun = state.withLock { state -> BodyStreamLengthMismatch? in
                        guard let length, state.produced + Int64(piece.count) > length else { return nil }
                        // The surplus is dropped, and so is what is buffered: the request fails.
                        let mismatch = BodyStreamLengthMismatch(
                            declared: length, produced: state.produced + Int64(piece.count))
                        state.pieces = []
                        state.offset = 0
                        state.buffered = 0
                        state.isFinished = true
                        state.overrun = mismatch
                        return mismatch
                    }
                    if let overrun {
                        if let self { overran(self, overrun) }
                        wake()
                        return
                    }
                    let wakes = state.withLock { state -> Bool in
                        state.pieces.append(piece)
                        state.buffered += piece.count
                        state.produced += Int64(piece.count)
                        defer { state.wantsData = false }
                        return state.wantsData
                    }
                    if wakes { wake() }
                }
            } catch {
                failure = error
            }
            let wakes = state.withLock { state -> Bool in
                if failure == nil, let length, state.produced != length {
                    failure = BodyStreamLengthMismatch(declared: length, produced: state.produced)
                }
                state.isFinished = true
                state.failure = failure
                defer { state.wantsData = false }
                return state.wantsData
            }
            if wakes { wake() }
        }
        task.withLock { $0 = started }
    }

    /// Copies up to `buffer.count` ready bytes into `buffer`.
    /// - Throws: What stopped the sequence (or a length it did not keep).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Read {
        let (read, producer) = try state.withLock { state -> (Read, CheckedContinuation<Void, Never>?) in
            if let overrun = state.overrun { throw overrun }
            var copied = 0
            while copied < buffer.count, let piece = state.pieces.first {
                let available = piece.count - state.offset
                let count = min(available, buffer.count - copied)
                piece.withUnsafeBytes { bytes in
                    let start = bytes.baseAddress!.advanced(by: state.offset)
                    buffer.baseAddress!.advanced(by: copied).copyMemory(from: start, byteCount: count)
                }
                copied += count
                state.offset += count
                state.buffered -= count
                if state.offset == piece.count {
                    state.pieces.removeFirst()
                    state.offset = 0
                }
            }
            var producer: CheckedContinuation<Void, Never>?
            if state.buffered < bufferSize {
                producer = state.producer
                state.producer = nil
            }
            if copied > 0 { return (.bytes(copied), producer) }
            if state.isFinished {
                if let failure = state.failure { throw failure }
                return (.end, producer)
            }
            state.wantsData = true
            return (.wait, producer)
        }
        producer?.resume()
        return read
    }

    /// The overrun seen so far, if the sequence produced more than its declared length.
    package var overrun: BodyStreamLengthMismatch? { state.withLock { $0.overrun } }

    /// Stops reading the sequence.
    package func cancel() {
        task.withLock { $0 }?.cancel()
        let producer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.producer = nil }
            return state.producer
        }
        producer?.resume()
    }
}

/// A ``BodyStream`` produced another number of bytes than its declared length.
public struct BodyStreamLengthMismatch: Error, Sendable, CustomStringConvertible {
    /// The length the body stream declared.
    public var declared: Int64
    /// The bytes its sequence produced.
    public var produced: Int64

    /// Says what happened.
    public var description: String {
        "the body stream declared \(declared) bytes and produced \(produced)"
    }
}
