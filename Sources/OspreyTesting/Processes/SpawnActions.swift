#if os(Linux) || os(macOS)
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// `posix_spawn_file_actions_t`: what the child does to its descriptors before `exec`, in order.
    struct SpawnActions {
        #if canImport(Darwin)
            var raw: posix_spawn_file_actions_t? = nil
        #else
            var raw = posix_spawn_file_actions_t()
        #endif

        init() throws {
            try check("posix_spawn_file_actions_init", posix_spawn_file_actions_init(&raw))
        }

        mutating func destroy() {
            posix_spawn_file_actions_destroy(&raw)
        }

        /// Makes `descriptor` the child's `target` too (`dup2`, which clears close-on-exec).
        mutating func duplicate(_ descriptor: Int32, as target: Int32) throws {
            try check(
                "posix_spawn_file_actions_adddup2", posix_spawn_file_actions_adddup2(&raw, descriptor, target)
            )
        }

        /// Opens `/dev/null` as the child's `target`.
        mutating func openNullDevice(as target: Int32, flags: Int32) throws {
            try check(
                "posix_spawn_file_actions_addopen",
                posix_spawn_file_actions_addopen(&raw, target, "/dev/null", flags, 0))
        }

        /// Starts the child in `directory`.
        mutating func changeDirectory(to directory: String) throws {
            #if os(Linux)
                try check(
                    "posix_spawn_file_actions_addchdir_np", try Self.glibc.addChangeDirectory(&raw, directory)
                )
            #else
                try check(
                    "posix_spawn_file_actions_addchdir_np",
                    posix_spawn_file_actions_addchdir_np(&raw, directory))
            #endif
        }

        /// Closes every descriptor but the standard three in the child, whoever opened it and
        /// whenever: a list made beforehand would miss those other threads open meanwhile.
        mutating func closeDescriptorsAboveStandardStreams(attributes: inout SpawnAttributes) throws {
            #if os(Linux)
                try check("posix_spawn_file_actions_addclosefrom_np", try Self.glibc.addCloseFrom(&raw, 3))
            #else
                try attributes.add(flags: Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
            #endif
        }
    }

    #if os(Linux)
        extension SpawnActions {
            /// glibc's GNU extensions to `posix_spawn` (2.29 and 2.34), which Swift's Glibc module
            /// does not declare (it is not compiled with `_GNU_SOURCE`): looked up by name.
            struct GNUExtensions {
                typealias AddChangeDirectory =
                    @convention(c) (
                        UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?
                    ) -> Int32
                typealias AddCloseFrom =
                    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) ->
                    Int32

                let addChangeDirectory: AddChangeDirectory
                let addCloseFrom: AddCloseFrom
            }

            static var glibc: GNUExtensions {
                get throws {
                    // A null handle is RTLD_DEFAULT: the symbols of the process and its libraries.
                    guard let chdir = dlsym(nil, "posix_spawn_file_actions_addchdir_np"),
                        let closefrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
                    else {
                        throw ChildProcess.Failure(call: "dlsym posix_spawn_file_actions_*_np", code: ENOSYS)
                    }
                    return GNUExtensions(
                        addChangeDirectory: unsafeBitCast(chdir, to: GNUExtensions.AddChangeDirectory.self),
                        addCloseFrom: unsafeBitCast(closefrom, to: GNUExtensions.AddCloseFrom.self))
                }
            }
        }
    #endif

    /// `posix_spawnattr_t`: the child's signal mask and handlers, and the spawn's flags.
    struct SpawnAttributes {
        #if canImport(Darwin)
            var raw: posix_spawnattr_t? = nil
        #else
            var raw = posix_spawnattr_t()
        #endif
        private var flags: Int16 = 0

        init() throws {
            try check("posix_spawnattr_init", posix_spawnattr_init(&raw))
        }

        mutating func destroy() {
            posix_spawnattr_destroy(&raw)
        }

        mutating func add(flags more: Int16) throws {
            flags |= more
            try check("posix_spawnattr_setflags", posix_spawnattr_setflags(&raw, flags))
        }

        /// The child starts with no signal blocked and every handler at its default: a thread
        /// of the test runner may block SIGTERM or SIGPIPE, and the child would inherit that.
        mutating func resetSignals() throws {
            var none = sigset_t()
            sigemptyset(&none)
            try check("posix_spawnattr_setsigmask", posix_spawnattr_setsigmask(&raw, &none))
            var all = sigset_t()
            sigfillset(&all)
            sigdelset(&all, SIGKILL)
            sigdelset(&all, SIGSTOP)
            try check("posix_spawnattr_setsigdefault", posix_spawnattr_setsigdefault(&raw, &all))
            try add(flags: Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
    }

    /// NUL-terminated copies of strings in a NULL-terminated array, as `argv` and `envp` want.
    final class CStrings {
        let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        private let count: Int

        init(_ strings: [String]) {
            count = strings.count
            pointers = .allocate(capacity: strings.count + 1)
            for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
            pointers[strings.count] = nil
        }

        deinit {
            for index in 0..<count { free(pointers[index]) }
            pointers.deallocate()
        }
    }

    /// Throws when a `posix_spawn` function returned an error number.
    private func check(_ call: String, _ result: Int32) throws {
        guard result == 0 else { throw ChildProcess.Failure(call: call, code: result) }
    }
#endif
