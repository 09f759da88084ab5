import Dispatch

/// A value that becomes available later: fulfilled with a `Value`, rejected with an error, or
/// cancelled. It settles once; the first transition wins.
///
/// ```swift
/// api.requestUser()
///     .then(api.getFavorites(of:))
///     .onSuccess(in: .main) { @MainActor favorites in self.favorites = favorites }
///     .onError { error in log(error) }
///     .finally { print("done") }
/// ```
///
/// Every handler runs at most once, exactly once if its branch is taken, on the queue given with
/// `in:` or else on the promise's default queue, never inline on the registering thread and
/// never under a lock. Handlers are released as soon as the promise settles.
/// `Promise` is a cheap value: copies refer to the same promise.
public struct Promise<Value: Sendable>: Sendable {
    @usableFromInline let core: PromiseCore<Value>

    @inlinable
    init(core: PromiseCore<Value>) {
        self.core = core
    }

    /// An object of the package's own that lives as long as the promise does (copies share it):
    /// the progress of the request an API made it for. Nil until set.
    package var attachment: (any AnyObject & Sendable)? {
        get { core.attachment }
        nonmutating set { core.attachment = newValue }
    }

    /// A promise already fulfilled with `value`.
    /// - Parameters:
    ///   - value: The value.
    ///   - queue: The default queue for handlers registered without `in:`.
    @inlinable
    public init(value: Value, defaultQueue queue: DispatchQueue? = nil) {
        core = .make(.settled(.fulfilled(value)), defaultQueue: queue ?? promiseDefaultQueue)
    }

    /// A promise already rejected with `error`.
    /// - Parameters:
    ///   - error: The error.
    ///   - queue: The default queue for handlers registered without `in:`.
    @inlinable
    public init(error: any Error, defaultQueue queue: DispatchQueue? = nil) {
        core = .make(.settled(.rejected(error)), defaultQueue: queue ?? promiseDefaultQueue)
    }

    /// A pending promise and the resolver that is the only way to settle it.
    ///
    /// If the resolver is released while the promise is still pending, the promise is cancelled,
    /// so no chain can wait forever.
    /// - Parameter queue: The default queue for handlers registered without `in:`; a library
    ///   queue when nil.
    /// - Returns: The promise and its resolver.
    @inlinable
    public static func pending(defaultQueue queue: DispatchQueue? = nil) -> (
        promise: Promise<Value>, resolver: Resolver<Value>
    ) {
        let core = PromiseCore<Value>.make(.pending, defaultQueue: queue ?? promiseDefaultQueue)
        return (Promise(core: core), Resolver(core: core))
    }

    /// The queue handlers registered without `in:` run on.
    @inlinable
    public var defaultQueue: DispatchQueue { core.defaultQueue }

    /// True until the promise is fulfilled, rejected or cancelled.
    public var isPending: Bool {
        // The lock part's flag, which needs no generic metadata (copying the outcome out did).
        !core.isSettled
    }

    /// True once the promise is cancelled.
    public var isCancelled: Bool {
        if case .cancelled? = core.outcome { return true }
        return false
    }

    /// The result once settled (cancellation as `CancellationError`), nil while pending.
    public var currentResult: Result<Value, any Error>? { core.outcome?.result }

    /// Cancels the promise if it is still pending.
    ///
    /// The producer's cancel hooks run (for a request, the network task is cancelled), promises
    /// derived from this one become cancelled, and the promise this one was derived from is
    /// cancelled too once every promise derived from it has been cancelled. `onError` handlers
    /// are not called unless registered with `includingCancellation: true`; `finally` handlers are.
    public func cancel() {
        core.settle(.cancelled)
    }
}
