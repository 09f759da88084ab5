import Dispatch

/// A handler held in the allocation of the promise it settles, after that promise's header (see
/// `StepTail`). Deriving a promise then costs one allocation, and the callback the upstream
/// promise keeps, like the work handed to the handler's queue, is a closure that captures only
/// the derived core, which Swift uses as the closure's context instead of allocating one.
///
/// The step's own fields are written when the promise is made, then by the step alone: the value
/// is stored on receiving it (on the settling thread, before the work is handed to the queue) and
/// taken, with the handler, when it runs (on the queue). The hand-over (dispatch, or the turn's
/// loop on one thread) orders the two. They are reached without the core's mutex and never
/// overlap the header it guards.
@usableFromInline
protocol HandlerStep: Sendable, SendableMetatype {
    associatedtype Input: Sendable
    associatedtype Output: Sendable

    /// Sees the upstream promise's outcome, on the thread that settled it: stores what the
    /// handler needs and hands it to its queue, or settles `derived` without running it.
    static func receive(_ outcome: Outcome<Input>, into derived: PromiseCore<Output>)
}

/// The tail of a core made by a step: the header first, where the core looks for it, then the
/// step. Reaching the step through its own address keeps the step's accesses apart from the
/// header's, which other threads lock and change meanwhile.
@usableFromInline
struct StepTail<Step: HandlerStep>: TailAllocatedHeader {
    @usableFromInline var header: PromiseHeader<Step.Output>
    @usableFromInline var step: Step
}

extension HandlerStep {
    /// Makes the promise that this step settles, with the step inside it, and registers the step
    /// on `upstream`.
    @inlinable
    func derive(from upstream: PromiseCore<Input>) -> PromiseCore<Output> {
        let derived = PromiseCore<Output>.make(
            .pending, defaultQueue: upstream.defaultQueue, upstream: upstream, tail: StepTail<Self>.self
        ) { tail in Self.step(in: tail).initialize(to: self) }
        if let outcome = upstream.register(
            observing: true, making: { { outcome in Self.receive(outcome, into: derived) } })
        {
            // Already settled for good: every earlier callback has been handed out, so taking
            // this one now keeps registration order.
            Self.receive(outcome, into: derived)
        }
        return derived
    }

    /// Runs `body` with the step held in `derived`.
    @inlinable
    static func withStep<Result>(
        in derived: PromiseCore<Output>, _ body: (UnsafeMutablePointer<Self>) -> Result
    ) -> Result {
        let parts = ManagedBufferPointer<PromiseLock, StepTail<Self>>(unsafeBufferObject: derived)
        return parts.withUnsafeMutablePointerToElements { tail in body(step(in: tail)) }
    }

    /// The step inside a tail, reached through its own address.
    @inlinable
    static func step(in tail: UnsafeMutablePointer<StepTail<Self>>) -> UnsafeMutablePointer<Self> {
        let step = UnsafeMutableRawPointer(tail) + MemoryLayout<StepTail<Self>>.offset(of: \.step)!
        return step.assumingMemoryBound(to: Self.self)
    }
}

/// What a transforming handler makes of its argument (the value for `then`, the error for
/// `recover`): the next value, or a promise the derived promise follows.
@usableFromInline
enum Transform<Argument: Sendable, Output: Sendable>: Sendable {
    /// Returns the next value (or throws).
    case map(@Sendable (Argument) throws -> Output)
    /// Returns a promise, which the derived promise follows.
    case flatMap(@Sendable (Argument) throws -> Promise<Output>)

    /// Runs the handler with `argument` and settles `derived` with what it gave, once its code
    /// returned (see `HandlerHop`).
    @inlinable
    func apply(
        to argument: Argument, settling derived: PromiseCore<Output>,
        afterHandlerIn turn: UnsafeMutablePointer<HandlerHop.Turn>?, on queue: DispatchQueue
    ) {
        switch self {
        case .map(let transform):
            let next: Outcome<Output>
            do {
                next = .fulfilled(try transform(argument))
            } catch {
                next = .rejected(error)
            }
            derived.settle(next, afterHandlerIn: turn, on: queue)
        case .flatMap(let next):
            derived.follow(Result { try next(argument).core }, afterHandlerIn: turn, on: queue)
        }
    }
}

/// The handler of `then`, in either form.
@usableFromInline
struct ValueStep<Input: Sendable, Output: Sendable>: HandlerStep {
    @usableFromInline let queue: DispatchQueue
    /// Taken when the handler runs, so that what it captures is freed while the promise lives on.
    @usableFromInline var body: Transform<Input, Output>?
    @usableFromInline var value: Input?

    @inlinable
    init(queue: DispatchQueue, body: Transform<Input, Output>) {
        self.queue = queue
        self.body = body
    }

    @inlinable
    static func receive(_ outcome: Outcome<Input>, into derived: PromiseCore<Output>) {
        guard case .fulfilled(let value) = outcome else {
            // The handler will not run: free what it captures now, not when the promise goes.
            withStep(in: derived) { _ = $0.pointee.body.take() }
            return derived.settleSoon(outcome.failure()!)
        }
        let queue = withStep(in: derived) { step in
            step.pointee.value = value
            return step.pointee.queue
        }
        HandlerHop.run(on: queue) { run(derived) }
    }

    @inlinable
    static func run(_ derived: PromiseCore<Output>) {
        let turn = HandlerHop.claim()
        let (value, queue, body) = withStep(in: derived) { step in
            (step.pointee.value.take()!, step.pointee.queue, step.pointee.body.take()!)
        }
        body.apply(to: value, settling: derived, afterHandlerIn: turn, on: queue)
    }
}

/// The handler of `onSuccess`, `onError`, `onCancel`, `finally` or `onResult`: it sees the
/// outcome and passes it on unchanged.
@usableFromInline
struct ObserverStep<Value: Sendable>: HandlerStep {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    /// Which outcomes the handler sees, and how.
    @usableFromInline
    enum Body: Sendable {
        /// `onSuccess`.
        case success(@Sendable (Value) -> Void)
        /// `onError`: rejection, and cancellation (as `CancellationError`) when asked.
        case error(includingCancellation: Bool, @Sendable (any Error) -> Void)
        /// `onCancel`.
        case cancel(@Sendable () -> Void)
        /// `finally`.
        case finally(@Sendable () -> Void)
        /// `onResult`.
        case result(@Sendable (Result<Value, any Error>) -> Void)

        /// Whether the handler runs for `outcome`.
        @inlinable
        func runs(for outcome: Outcome<Value>) -> Bool {
            switch (self, outcome) {
            case (.success, .fulfilled), (.error, .rejected), (.cancel, .cancelled), (.finally, _),
                (.result, _):
                true
            case (.error(let includingCancellation, _), .cancelled): includingCancellation
            case (.success, _), (.error, .fulfilled), (.cancel, _): false
            }
        }

        /// Runs the handler for `outcome`, which it `runs(for:)`.
        @inlinable
        func run(_ outcome: Outcome<Value>) {
            switch self {
            case .success(let handler):
                if case .fulfilled(let value) = outcome { handler(value) }
            case .error(_, let handler):
                if case .rejected(let error) = outcome {
                    handler(error)
                } else {
                    handler(CancellationError())
                }
            case .cancel(let handler), .finally(let handler): handler()
            case .result(let handler): handler(outcome.result)
            }
        }
    }

    @usableFromInline let queue: DispatchQueue
    /// Taken when the handler runs, or is skipped, so that what it captures is freed then.
    @usableFromInline var body: Body?
    @usableFromInline var outcome: Outcome<Value>?

    @inlinable
    init(queue: DispatchQueue, body: Body) {
        self.queue = queue
        self.body = body
    }

    @inlinable
    static func receive(_ outcome: Outcome<Value>, into derived: PromiseCore<Value>) {
        let queue = withStep(in: derived) { step -> DispatchQueue? in
            guard step.pointee.body!.runs(for: outcome) else {
                step.pointee.body = nil
                return nil
            }
            step.pointee.outcome = outcome
            return step.pointee.queue
        }
        guard let queue else { return derived.settleSoon(outcome) }
        HandlerHop.run(on: queue) { run(derived) }
    }

    @inlinable
    static func run(_ derived: PromiseCore<Value>) {
        let turn = HandlerHop.claim()
        let (outcome, queue, body) = withStep(in: derived) { step in
            (step.pointee.outcome.take()!, step.pointee.queue, step.pointee.body.take()!)
        }
        body.run(outcome)
        derived.settle(outcome, afterHandlerIn: turn, on: queue, fromUpstream: true)
    }
}
