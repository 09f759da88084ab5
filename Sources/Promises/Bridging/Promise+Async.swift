import Dispatch

extension Promise {
    /// The value, awaited: throws the rejection's error, or `CancellationError` when the promise
    /// is cancelled.
    ///
    /// Cancelling the awaiting task throws `CancellationError` at once and counts as this
    /// observer no longer needing the result: the promise itself is cancelled once every
    /// observer has said so.
    public var value: Value {
        get async throws { try await result.get() }
    }

    /// The result, awaited (cancellation as `CancellationError`). See ``value``.
    public var result: Result<Value, any Error> {
        get async {
            let waiter = Locked(AwaitState<Value>.starting)
            let core = self.core
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    core.register(observing: true) { outcome in
                        let result = outcome.result
                        waiter.withLock { $0.finish(with: result) }?.resume(returning: result)
                    }
                    switch waiter.withLock({ $0.start(with: continuation) }) {
                    case .wait:
                        break
                    case .resume(let result):
                        continuation.resume(returning: result)
                    case .resumeCancelled:
                        continuation.resume(returning: .failure(CancellationError()))
                        core.requestCancel()
                    }
                }
            } onCancel: {
                // Before the continuation exists, `start` sees the early cancellation instead.
                if let continuation = waiter.withLock({ $0.cancel() }) {
                    continuation.resume(returning: .failure(CancellationError()))
                    core.requestCancel()
                }
            }
        }
    }

    /// Starts `operation` in a new task and makes a promise of its outcome.
    ///
    /// Cancelling the promise cancels the task; a task that ends by throwing
    /// `CancellationError` cancels the promise.
    /// - Parameters:
    ///   - priority: The task's priority.
    ///   - queue: The default queue for handlers registered without `in:`.
    ///   - operation: The asynchronous work.
    public init(
        priority: TaskPriority? = nil,
        defaultQueue queue: DispatchQueue? = nil,
        _ operation: @escaping @Sendable () async throws -> Value
    ) {
        let (promise, resolver) = Self.pending(defaultQueue: queue)
        let task = Task(priority: priority) {
            do {
                resolver.fulfill(try await operation())
            } catch is CancellationError {
                resolver.cancel()
            } catch {
                resolver.reject(error)
            }
        }
        resolver.onCancel { task.cancel() }
        self = promise
    }
}

/// One `await` on a promise: whichever comes first, the outcome or the task's cancellation,
/// resumes the continuation; the other finds nothing left to do.
enum AwaitState<Value: Sendable> {
    typealias Continuation = CheckedContinuation<Result<Value, any Error>, Never>

    case starting
    case waiting(Continuation)
    case finishedEarly(Result<Value, any Error>)
    case cancelledEarly
    case done

    /// What the awaiting side must do once its continuation exists.
    enum Start {
        case wait
        case resume(Result<Value, any Error>)
        case resumeCancelled
    }

    /// The outcome arrived: the continuation to resume, if it exists and nobody resumed it yet.
    mutating func finish(with result: Result<Value, any Error>) -> Continuation? {
        switch self {
        case .waiting(let continuation):
            self = .done
            return continuation
        case .starting:
            self = .finishedEarly(result)
            return nil
        case .finishedEarly, .cancelledEarly, .done:
            return nil
        }
    }

    /// The continuation exists.
    mutating func start(with continuation: Continuation) -> Start {
        switch self {
        case .starting:
            self = .waiting(continuation)
            return .wait
        case .finishedEarly(let result):
            self = .done
            return .resume(result)
        case .cancelledEarly:
            self = .done
            return .resumeCancelled
        case .waiting, .done:
            return .wait
        }
    }

    /// The task was cancelled: the continuation to resume now, if it exists.
    mutating func cancel() -> Continuation? {
        switch self {
        case .starting:
            self = .cancelledEarly
            return nil
        case .waiting(let continuation):
            self = .done
            return continuation
        case .finishedEarly, .cancelledEarly, .done:
            return nil
        }
    }
}
