/// The write side of a pending promise: fulfils, rejects or cancels it, once.
///
/// ```swift
/// let (promise, resolver) = Promise<Data>.pending()
/// let task = session.dataTask(with: url) { data, _, error in
///     if let error { resolver.reject(error) } else { resolver.fulfill(data ?? Data()) }
/// }
/// resolver.onCancel { task.cancel() }
/// task.resume()
/// return promise
/// ```
///
/// Releasing the last reference to a resolver whose promise is still pending cancels the promise.
public final class Resolver<Value: Sendable>: Sendable {
    @usableFromInline let core: PromiseCore<Value>

    @inlinable
    init(core: PromiseCore<Value>) {
        self.core = core
    }

    deinit {
        // The common case, an already settled promise, is checked without generic metadata.
        if !core.isSettled { core.settle(.cancelled) }
    }

    /// Fulfils the promise with `value` unless it is already settled.
    /// - Returns: Whether this call settled the promise.
    @inlinable
    @discardableResult
    public func fulfill(_ value: Value) -> Bool {
        core.settle(.fulfilled(value))
    }

    /// Rejects the promise with `error` unless it is already settled.
    /// - Returns: Whether this call settled the promise.
    @inlinable
    @discardableResult
    public func reject(_ error: any Error) -> Bool {
        core.settle(.rejected(error))
    }

    /// Settles the promise with a result unless it is already settled.
    /// - Returns: Whether this call settled the promise.
    @inlinable
    @discardableResult
    public func resolve(_ result: Result<Value, any Error>) -> Bool {
        switch result {
        case .success(let value): core.settle(.fulfilled(value))
        case .failure(let error): core.settle(.rejected(error))
        }
    }

    /// Cancels the promise unless it is already settled.
    /// - Returns: Whether this call settled the promise.
    @discardableResult
    public func cancel() -> Bool {
        core.settle(.cancelled)
    }

    /// True while the promise is pending: a producer can stop early once it is not.
    public var isPending: Bool {
        // The lock part's flag, which needs no generic metadata (copying the outcome out did).
        !core.isSettled
    }

    /// Registers the producer's cancel hook (for example, cancelling a network task). It runs on
    /// the cancelling thread when the promise is cancelled, at once if it already was, and is
    /// released unrun if the promise settles otherwise.
    public func onCancel(_ hook: @escaping @Sendable () -> Void) {
        core.addCancelHook(hook)
    }
}
