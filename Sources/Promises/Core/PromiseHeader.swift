import Dispatch

/// The mutable part of a `PromiseCore`, guarded by its mutex.
@usableFromInline
struct PromiseHeader<Value: Sendable> {
    @usableFromInline typealias Callback = @Sendable (Outcome<Value>) -> Void

    @usableFromInline
    enum State {
        case pending
        case draining(Outcome<Value>)
        case settled(Outcome<Value>)
    }

    @usableFromInline var state: State
    /// The first callback inline: most promises have exactly one.
    @usableFromInline var firstCallback: Callback?
    @usableFromInline var moreCallbacks: [Callback] = []
    @usableFromInline var cancelHooks: [@Sendable () -> Void] = []
    /// The promise this one waits on (its parent, or the promise a chain step returned): asked to
    /// cancel when this one is cancelled. A stored reference rather than a hook closure, so that
    /// deriving a promise allocates nothing extra. Cleared at settlement.
    @usableFromInline var upstream: (any UpstreamPromise)?
    /// Observers that may ask for cancellation (derived promises, awaiting tasks).
    @usableFromInline var observers = 0
    @usableFromInline var cancelRequests = 0

    @inlinable
    init(state: State, upstream: (any UpstreamPromise)?) {
        self.state = state
        self.upstream = upstream
    }
}

/// The non-generic part of a `PromiseCore`: its mutex, whether it has settled, its default queue,
/// and how to destroy its generic tail (the header, and a step when one is held). `isSettled` is guarded by the mutex; the rest is set
/// once at creation.
@usableFromInline
struct PromiseLock {
    @usableFromInline var mutex = PlatformMutex()
    @usableFromInline var isSettled: Bool
    @usableFromInline let defaultQueue: DispatchQueue
    /// Lets the (unspecialised) deinitialiser destroy the header through a witness call, with the
    /// header's metadata at hand instead of looked up at run time.
    @usableFromInline let headerType: any TailAllocatedHeader.Type
    /// Where the generic header starts, counted from the start of this lock part.
    @usableFromInline var headerOffset = 0
    /// The tail holds a handler step after the header (see `StepTail`).
    @usableFromInline var holdsStep = false
    /// False once the header holds nothing that needs destroying (see
    /// `PromiseCore.settleForGood`). Guarded by the mutex; read by the deinitialiser, which runs
    /// after every other reference is gone.
    @usableFromInline var headerNeedsDestroy = true
    /// An object the package keeps with the promise for as long as it lives (see
    /// `Promise.attachment`). Guarded by the mutex.
    @usableFromInline var attachment: (any AnyObject & Sendable)?

    @inlinable
    init(defaultQueue: DispatchQueue, isSettled: Bool, headerType: any TailAllocatedHeader.Type) {
        self.defaultQueue = defaultQueue
        self.isSettled = isSettled
        self.headerType = headerType
    }

    /// The mutex inside a tail-allocated lock part (a stable address).
    @inlinable
    static func mutex(in lock: UnsafeMutablePointer<PromiseLock>) -> UnsafeMutablePointer<PlatformMutex> {
        (UnsafeMutableRawPointer(lock) + MemoryLayout<PromiseLock>.offset(of: \.mutex)!)
            .assumingMemoryBound(to: PlatformMutex.self)
    }
}

/// A promise core seen from a promise derived from it: all a derived promise may do upstream is
/// say that it no longer needs the result.
@usableFromInline
protocol UpstreamPromise: AnyObject, Sendable {
    func requestCancel()
    var defaultQueue: DispatchQueue { get }
}

/// A header stored in the element area of a promise core's allocation. No requirements: the
/// deinitialiser calls the extension method below on the stored metatype, which hands the
/// header's metadata straight to the runtime. A requirement implemented in `PromiseHeader` would
/// instead run as generic code over `Value` and look `PromiseHeader<Value>` up on every call.
@usableFromInline
protocol TailAllocatedHeader {}

extension TailAllocatedHeader {
    /// Deinitialises the header stored at `address`.
    @usableFromInline
    static func deinitialize(at address: UnsafeMutableRawPointer) {
        _ = address.assumingMemoryBound(to: Self.self).deinitialize(count: 1)
    }
}

extension PromiseHeader: TailAllocatedHeader {}
