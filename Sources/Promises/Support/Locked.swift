#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a mutex, reachable only inside `withLock`.
///
/// It is the package's one lock abstraction: `Synchronization.Mutex` would need macOS 15 / iOS 18,
/// above the package's platform floors. Callers must never run user code inside `withLock`.
package final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only read or written while `mutex` is held.
    @usableFromInline var state: State
    @usableFromInline let mutex: UnsafeMutablePointer<PlatformMutex>

    /// Creates a lock around an initial state.
    package init(_ initialState: State) {
        state = initialState
        mutex = UnsafeMutablePointer<PlatformMutex>.allocate(capacity: 1)
        PlatformMutex.initialize(mutex)
    }

    deinit {
        PlatformMutex.destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state and returns its result. Inlinable, so that
    /// the package's other modules run it specialised to their state.
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        PlatformMutex.lock(mutex)
        defer { PlatformMutex.unlock(mutex) }
        return try body(&state)
    }

    /// Runs `body` like ``withLock(_:)`` if the lock is free now; returns nil without waiting
    /// when another thread holds it.
    @inlinable @inline(__always)
    package func withLockIfAvailable<Result>(_ body: (inout State) throws -> Result) rethrows -> Result? {
        guard PlatformMutex.tryLock(mutex) else { return nil }
        defer { PlatformMutex.unlock(mutex) }
        return try body(&state)
    }
}

#if canImport(Darwin)
    @usableFromInline package typealias PlatformMutex = os_unfair_lock

    extension os_unfair_lock {
        @inlinable @inline(__always) static func initialize(_ mutex: UnsafeMutablePointer<os_unfair_lock>) {
            mutex.initialize(to: os_unfair_lock())
        }
        @inlinable @inline(__always) static func destroy(_ mutex: UnsafeMutablePointer<os_unfair_lock>) {
            mutex.deinitialize(count: 1)
        }
        @inlinable @inline(__always) static func lock(_ mutex: UnsafeMutablePointer<os_unfair_lock>) {
            os_unfair_lock_lock(mutex)
        }
        @inlinable @inline(__always) static func tryLock(_ mutex: UnsafeMutablePointer<os_unfair_lock>)
            -> Bool
        {
            os_unfair_lock_trylock(mutex)
        }
        @inlinable @inline(__always) static func unlock(_ mutex: UnsafeMutablePointer<os_unfair_lock>) {
            os_unfair_lock_unlock(mutex)
        }
    }
#else
    @usableFromInline package typealias PlatformMutex = pthread_mutex_t

    extension pthread_mutex_t {
        @inlinable @inline(__always) static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
        }
        @inlinable @inline(__always) static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
        @inlinable @inline(__always) static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
            pthread_mutex_lock(mutex)
        }
        @inlinable @inline(__always) static func tryLock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>)
            -> Bool
        {
            pthread_mutex_trylock(mutex) == 0
        }
        @inlinable @inline(__always) static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
            pthread_mutex_unlock(mutex)
        }
    }
#endif
