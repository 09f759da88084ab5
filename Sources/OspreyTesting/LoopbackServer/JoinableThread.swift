import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A POSIX thread that can be joined, so that `stop()` returns only once the server's threads
/// have really exited (Foundation's `Thread` cannot be joined).
struct JoinableThread: @unchecked Sendable {
    // @unchecked: `pthread_t` is a plain handle; it is joined exactly once, by the server's stop.
    private let handle: pthread_t

    /// Starts `body` on a new thread named `name` (as far as the platform allows).
    init(name: String, _ body: @escaping @Sendable () -> Void) throws {
        let context = Unmanaged.passRetained(Context(name: name, body: body)).toOpaque()
        #if canImport(Darwin)
            var created: pthread_t?
            let result = pthread_create(&created, nil, { Self.run($0) }, context)
            guard result == 0, let created else {
                Unmanaged<Context>.fromOpaque(context).release()
                throw Socket.Failure(call: "pthread_create", code: result)
            }
            handle = created
        #else
            var created = pthread_t()
            let result = pthread_create(&created, nil, { Self.run($0) }, context)
            guard result == 0 else {
                Unmanaged<Context>.fromOpaque(context).release()
                throw Socket.Failure(call: "pthread_create", code: result)
            }
            handle = created
        #endif
    }

    /// Waits until the thread has exited.
    func join() {
        pthread_join(handle, nil)
    }

    private final class Context: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    private static func run(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let raw else { return nil }
        let context = Unmanaged<Context>.fromOpaque(raw).takeRetainedValue()
        #if canImport(Darwin)
            pthread_setname_np(context.name)
        #elseif os(Linux)
            // Glibc's module map hides `pthread_setname_np`; the kernel keeps at most 15 bytes.
            try? Data(context.name.utf8.prefix(15)).write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
        #endif
        context.body()
        return nil
    }
}
