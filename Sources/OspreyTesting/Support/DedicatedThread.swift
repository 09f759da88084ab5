import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// Marks the threads ``Blocking`` and ``BlockingThreads`` start, so that a test can tell them
/// from the cooperative pool's (a thread's name is no proof: a new thread inherits its
/// creator's, and Foundation keeps its own copy).
package enum DedicatedThread: Int, Sendable {
    /// A thread started by `Blocking.run(_:)` for one piece of blocking work.
    case blocking = 1
    /// A thread of a ``BlockingThreads`` executor.
    case executor = 2

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// What started the calling thread, or nil for any other thread (the pool's among them).
    package static var current: DedicatedThread? {
        pthread_getspecific(key).flatMap { DedicatedThread(rawValue: Int(bitPattern: $0)) }
    }

    /// Marks the calling thread as started for `kind`, and names it (for debuggers and `perf`).
    static func mark(_ kind: DedicatedThread, name: String) {
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: kind.rawValue))
        Thread.current.name = name
    }
}
