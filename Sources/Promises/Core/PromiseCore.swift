import Dispatch

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The shared state behind `Promise` and `Resolver`, in one allocation: a non-generic
/// `PromiseLock` (the mutex, a settled flag, the default queue) and the generic `PromiseHeader`
/// (the state machine), both tail-allocated so that the mutex has a stable address.
///
/// Keeping the lock part non-generic matters for speed: deinitialisers and the resolver's
/// "released while pending?" check run as unspecialised generic code, where every use of a
/// generic layout costs a runtime metadata lookup; the lock part has a fixed layout.
///
/// States: pending → draining → settled. *Draining* means settled, with the callbacks taken at
/// settlement still being handed out; callbacks registered meanwhile are queued behind them, so
/// that callbacks always start in registration order.
///
/// Callbacks are internal glue: they run on the thread that settles (or registers late), never
/// under the mutex, and hand user code to a queue themselves.
///
/// Sendable without `@unchecked`: the class declares no stored properties. Its state lives in
/// the tail allocation and is reached only under the mutex (`withLock`), apart from the
/// immutable default queue, which is what makes sharing it across threads safe.
@usableFromInline
final class PromiseCore<Value: Sendable>: UpstreamPromise {
    @usableFromInline typealias Callback = PromiseHeader<Value>.Callback
    @usableFromInline typealias State = PromiseHeader<Value>.State
    @usableFromInline typealias Header = PromiseHeader<Value>

    /// The allocation seen with a dummy element type: reaches the lock part without naming the
    /// generic tail, so unspecialised code needs no metadata lookup for it. The header is found
    /// through the offset the lock part records, whatever tail type the core was made with.
    @inlinable
    var lockStorage: ManagedBufferPointer<PromiseLock, UInt8> {
        ManagedBufferPointer(unsafeBufferObject: self)
    }

    @inlinable
    static func make(
        _ state: State,
        defaultQueue: DispatchQueue,
        upstream: (any UpstreamPromise)? = nil
    ) -> PromiseCore<Value> {
        make(state, defaultQueue: defaultQueue, upstream: upstream, tail: Header.self) { _ in }
    }

    /// Makes a core whose tail allocation is `Tail`: the header itself, or a struct whose first
    /// stored property is the header (a struct's first property sits at its start) followed by
    /// the handler step that settles this promise (`StepTail`). One allocation then holds both.
    /// - Parameters:
    ///   - tail: The header's type, or a step tail's; any other tail holds a step, so the
    ///     deinitialiser always destroys it.
    ///   - initializeStep: Initialises the tail's step, once its header is in place; does nothing
    ///     when the tail is the header.
    @inlinable
    static func make<Tail: TailAllocatedHeader>(
        _ state: State,
        defaultQueue: DispatchQueue,
        upstream: (any UpstreamPromise)?,
        tail: Tail.Type,
        initializeStep: (UnsafeMutablePointer<Tail>) -> Void
    ) -> PromiseCore<Value> {
        let holdingStep = Tail.self != Header.self
        let storage = ManagedBufferPointer<PromiseLock, Tail>(
            bufferClass: PromiseCore<Value>.self, minimumCapacity: 1
        ) { _, _ in
            var lock = PromiseLock(defaultQueue: defaultQueue, isSettled: false, headerType: Tail.self)
            lock.holdsStep = holdingStep
            switch state {
            case .pending:
                break
            case .draining(let outcome), .settled(let outcome):
                lock.isSettled = true
                lock.headerNeedsDestroy = holdingStep || upstream != nil || !Self.isTrivial(outcome)
            }
            return lock
        }
        storage.withUnsafeMutablePointers { lock, tail in
            PlatformMutex.initialize(PromiseLock.mutex(in: lock))
            // The header is built in place, at the start of the tail.
            UnsafeMutableRawPointer(tail).assumingMemoryBound(to: Header.self)
                .initialize(to: Header(state: state, upstream: upstream))
            initializeStep(tail)
            lock.pointee.headerOffset = UnsafeRawPointer(tail) - UnsafeRawPointer(lock)
        }
        return unsafeDowncast(storage.buffer, to: PromiseCore<Value>.self)
    }

    deinit {
        lockStorage.withUnsafeMutablePointerToHeader { lock in
            if lock.pointee.headerNeedsDestroy {
                lock.pointee.headerType.deinitialize(
                    at: UnsafeMutableRawPointer(lock) + lock.pointee.headerOffset)
            }
            PlatformMutex.destroy(PromiseLock.mutex(in: lock))
            _ = lock.deinitialize(count: 1)
        }
    }

    @inlinable
    func withLock<Result>(_ body: (inout Header) -> Result) -> Result {
        lockStorage.withUnsafeMutablePointerToHeader { lock in
            let header = (UnsafeMutableRawPointer(lock) + lock.pointee.headerOffset)
                .assumingMemoryBound(to: Header.self)
            let mutex = PromiseLock.mutex(in: lock)
            PlatformMutex.lock(mutex)
            defer { PlatformMutex.unlock(mutex) }
            return body(&header.pointee)
        }
    }

    /// Immutable after creation, so read without the lock.
    @inlinable
    var defaultQueue: DispatchQueue {
        lockStorage.withUnsafeMutablePointerToHeader { $0.pointee.defaultQueue }
    }

    /// Whether the promise has left the pending state: a check that needs no generic metadata,
    /// for unspecialised callers such as `Resolver.deinit`.
    @usableFromInline
    var isSettled: Bool { withLockPart { $0.pointee.isSettled } }

    /// The object kept with the promise (see `Promise.attachment`): a check that needs no
    /// generic metadata, like ``isSettled``.
    var attachment: (any AnyObject & Sendable)? {
        get { withLockPart { $0.pointee.attachment } }
        set { withLockPart { $0.pointee.attachment = newValue } }
    }

    /// Runs `body` on the lock part with the mutex held.
    private func withLockPart<Result>(_ body: (UnsafeMutablePointer<PromiseLock>) -> Result) -> Result {
        lockStorage.withUnsafeMutablePointerToHeader { lock in
            let mutex = PromiseLock.mutex(in: lock)
            PlatformMutex.lock(mutex)
            defer { PlatformMutex.unlock(mutex) }
            return body(lock)
        }
    }

    /// Marks the promise settled in the lock part; call with the mutex held.
    @inlinable
    func markSettled() {
        lockStorage.withUnsafeMutablePointerToHeader { $0.pointee.isSettled = true }
    }

    /// Puts the header in its final state; call with the mutex held. Once settled for good,
    /// every callback, hook and the upstream reference are gone, so only the outcome (and a step
    /// held in the tail) may need destroying: when nothing does, the (unspecialised,
    /// metadata-hungry) deinitialiser can skip the tail altogether.
    @inlinable
    func settleForGood(_ header: inout Header, _ outcome: Outcome<Value>) {
        header.state = .settled(outcome)
        let trivial = Self.isTrivial(outcome)
        lockStorage.withUnsafeMutablePointerToHeader { lock in
            lock.pointee.headerNeedsDestroy = lock.pointee.holdsStep || !trivial
        }
    }

    /// Whether destroying `outcome` would do nothing: a cancellation, or a value of a plain-data
    /// type (decided at compile time in specialised code).
    @inlinable
    static func isTrivial(_ outcome: Outcome<Value>) -> Bool {
        switch outcome {
        case .cancelled: true
        case .fulfilled: _isPOD(Value.self)
        case .rejected: false
        }
    }

    /// The outcome once settled (or draining), nil while pending.
    @inlinable
    var outcome: Outcome<Value>? {
        withLock { header in
            switch header.state {
            case .pending: nil
            case .draining(let outcome), .settled(let outcome): outcome
            }
        }
    }

    /// Settles the promise unless it already is; returns whether this call settled it.
    /// - Parameter fromUpstream: The outcome came from the promise this one waits on, so a
    ///   cancellation need not be reported back to it.
    @inlinable
    @discardableResult
    func settle(_ outcome: Outcome<Value>, fromUpstream: Bool = false) -> Bool {
        typealias Taken = (Callback?, [Callback], [@Sendable () -> Void], (any UpstreamPromise)?)
        let taken = withLock { header -> Taken? in
            guard case .pending = header.state else { return nil }
            // With no callback to hand out there is nothing to drain: settle for good at once,
            // which spares leaf promises a second trip through the lock.
            let hasCallbacks = header.firstCallback != nil || !header.moreCallbacks.isEmpty
            let taken = (header.firstCallback, header.moreCallbacks, header.cancelHooks, header.upstream)
            header.firstCallback = nil
            header.moreCallbacks = []
            header.cancelHooks = []
            header.upstream = nil
            markSettled()
            if hasCallbacks { header.state = .draining(outcome) } else { settleForGood(&header, outcome) }
            return taken
        }
        guard let (first, more, cancelHooks, upstream) = taken else { return false }
        if case .cancelled = outcome {
            for hook in cancelHooks { hook() }
            // Asynchronously, so that cancelling the tail of a long chain cannot overflow the stack.
            if let upstream, !fromUpstream { upstream.defaultQueue.async { upstream.requestCancel() } }
        }
        guard first != nil || !more.isEmpty else { return true }
        first?(outcome)
        for callback in more { callback(outcome) }
        // Hand out callbacks that arrived while draining, then settle for good.
        while let late = withLock({ header -> [Callback]? in
            guard header.firstCallback != nil || !header.moreCallbacks.isEmpty else {
                settleForGood(&header, outcome)
                return nil
            }
            defer {
                header.firstCallback = nil
                header.moreCallbacks = []
            }
            return (header.firstCallback.map { [$0] } ?? []) + header.moreCallbacks
        }) {
            for callback in late { callback(outcome) }
        }
        return true
    }

    /// Registers a callback; runs it at once (on this thread, outside the lock) when settled.
    /// `observing` counts the registration as an observer that may later request cancellation.
    @inlinable
    func register(observing: Bool, _ callback: @escaping Callback) {
        if let settledOutcome = register(observing: observing, making: { callback }) {
            callback(settledOutcome)
        }
    }

    /// Registers the callback `make` builds while the promise is pending (or draining), and
    /// returns nil; once settled for good, builds nothing and returns the outcome, for the caller
    /// to run the callback at once. Building it only when it must be stored lets a caller that
    /// creates and calls it on the spot keep its context off the heap. `make` runs under the
    /// lock, so it must only assemble a closure.
    @inlinable
    func register(observing: Bool, making make: () -> Callback) -> Outcome<Value>? {
        withLock { header -> Outcome<Value>? in
            if observing { header.observers += 1 }
            switch header.state {
            case .settled(let outcome):
                return outcome
            case .pending, .draining:
                if header.firstCallback == nil, header.moreCallbacks.isEmpty {
                    header.firstCallback = make()
                } else {
                    header.moreCallbacks.append(make())
                }
                return nil
            }
        }
    }

    /// Adds a hook run when the promise is cancelled; runs it at once if it already was.
    @inlinable
    func addCancelHook(_ hook: @escaping @Sendable () -> Void) {
        let runNow = withLock { header -> Bool in
            switch header.state {
            case .pending:
                header.cancelHooks.append(hook)
                return false
            case .draining(.cancelled), .settled(.cancelled):
                return true
            case .draining, .settled:
                return false
            }
        }
        if runNow { hook() }
    }

    /// One observer no longer needs the result; cancels when every observer has said so.
    @inlinable
    func requestCancel() {
        let everyoneAgrees = withLock { header -> Bool in
            guard case .pending = header.state else { return false }
            header.cancelRequests += 1
            return header.cancelRequests >= header.observers
        }
        if everyoneAgrees { settle(.cancelled) }
    }

    /// Settles on the default queue rather than on this thread: used when one promise settles
    /// another without user code in between, so that long chains cannot recurse deeply.
    @inlinable
    func settleSoon(_ outcome: Outcome<Value>) {
        defaultQueue.async { self.settle(outcome, fromUpstream: true) }
    }

    /// Makes this promise wait for `upstream` and take its outcome; cancelling this promise asks
    /// `upstream` to cancel.
    @inlinable
    func follow(_ upstream: PromiseCore<Value>) {
        let alreadyCancelled = withLock { header -> Bool in
            guard case .pending = header.state else { return true }
            header.upstream = upstream
            return false
        }
        upstream.register(observing: true) { outcome in self.settleSoon(outcome) }
        if alreadyCancelled { upstream.requestCancel() }
    }
}
