import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the tests are running under, for the few checks that only hold on a machine running at
/// its normal speed.
enum TestEnvironment {
    /// Whether this process was built with ThreadSanitizer: its runtime's entry point is then
    /// one of the process's symbols. Everything runs many times slower, on every suite at once.
    static let isThreadSanitized: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__tsan_init") != nil
    }()
}
