#if os(Linux) || os(macOS)
    import Foundation

    #if canImport(Glibc)
        import Glibc

        // The pipes' own read, write and close methods hide the system calls of the same names.
        private let systemRead = Glibc.read(_:_:_:)
        private let systemWrite = Glibc.write(_:_:_:)
        private let systemClose = Glibc.close(_:)
    #elseif canImport(Darwin)
        import Darwin

        private let systemRead = Darwin.read(_:_:_:)
        private let systemWrite = Darwin.write(_:_:_:)
        private let systemClose = Darwin.close(_:)
    #endif

    /// A program the test suites start: `posix_spawn` with pipes that survive signals, used
    /// instead of Foundation's `Process`.
    ///
    /// Why not `Process`: on Linux its `FileHandle` reads end in `try!` and crash the whole test
    /// run when a read is interrupted by a signal (EINTR), and its `run()` lists every descriptor
    /// of the process to close them in the child, which crashed once inside `memcpy` while the
    /// suites, running side by side, held nearly 3,000 descriptors. Here the child closes every
    /// descriptor above 2 itself (`closefrom`), so no other test's pipe or socket leaks into it
    /// and a captured pipe reaches its end when the child exits; every read, write and wait is
    /// retried on EINTR; and the child starts with no signals blocked, whatever the mask of the
    /// thread that starts it.
    package final class ChildProcess: @unchecked Sendable {
        /// Where one of the child's standard streams goes.
        package enum Stream: Sendable {
            /// `/dev/null`.
            case discard
            /// A pipe this process reads (for output) or writes (for input).
            case pipe
            /// For standard error only: wherever standard output goes.
            case output
        }

        /// The child's process identifier.
        package let processIdentifier: pid_t
        /// The read end of the child's standard output, when it is `.pipe`.
        package let output: ReadablePipe?
        /// The read end of the child's standard error, when it is `.pipe`.
        package let errors: ReadablePipe?
        /// The write end of the child's standard input, when it is `.pipe`.
        package let input: WritablePipe?

        private let lock = NSLock()
        private var exitStatus: Int32?

        /// Starts `executable` (a path; `/usr/bin/env` finds a program on the PATH) with
        /// `arguments`, in `directory` (this process's own when nil), with this process's
        /// environment plus `environment`.
        package init(
            _ executable: String, _ arguments: [String] = [], directory: String? = nil,
            environment: [String: String] = [:], standardInput: Stream = .discard,
            standardOutput: Stream = .discard, standardError: Stream = .discard
        ) throws {
            var actions = try SpawnActions()
            var attributes = try SpawnAttributes()
            defer {
                actions.destroy()
                attributes.destroy()
            }
            // The parent's ends of the pipes close when this initialiser throws; the child's
            // ends close once the child has them.
            var childEnds: [Int32] = []
            defer { for end in childEnds { _ = close(end) } }

            var input: WritablePipe?
            switch standardInput {
            case .pipe:
                let (read, write) = try Self.makePipe()
                input = WritablePipe(descriptor: write)
                childEnds.append(read)
                try actions.duplicate(read, as: STDIN_FILENO)
            case .discard, .output:
                try actions.openNullDevice(as: STDIN_FILENO, flags: O_RDONLY)
            }
            /// A pipe from the child's `target` (standard output or error) to this process.
            func readablePipe(as target: Int32) throws -> ReadablePipe {
                let (read, write) = try Self.makePipe()
                let pipe = ReadablePipe(descriptor: read)
                childEnds.append(write)
                try actions.duplicate(write, as: target)
                return pipe
            }
            var output: ReadablePipe?
            switch standardOutput {
            case .pipe: output = try readablePipe(as: STDOUT_FILENO)
            case .discard, .output: try actions.openNullDevice(as: STDOUT_FILENO, flags: O_WRONLY)
            }
            var errors: ReadablePipe?
            switch standardError {
            case .pipe: errors = try readablePipe(as: STDERR_FILENO)
            case .output: try actions.duplicate(STDOUT_FILENO, as: STDERR_FILENO)
            case .discard: try actions.openNullDevice(as: STDERR_FILENO, flags: O_WRONLY)
            }
            if let directory { try actions.changeDirectory(to: directory) }
            try actions.closeDescriptorsAboveStandardStreams(attributes: &attributes)
            try attributes.resetSignals()

            var variables = ProcessInfo.processInfo.environment
            variables.merge(environment) { _, new in new }
            let argv = CStrings([executable] + arguments)
            let envp = CStrings(variables.map { "\($0)=\($1)" })
            var pid = pid_t()
            let result = posix_spawn(
                &pid, executable, &actions.raw, &attributes.raw, argv.pointers, envp.pointers)
            guard result == 0 else { throw Failure(call: "posix_spawn \(executable)", code: result) }
            processIdentifier = pid
            self.input = input
            self.output = output
            self.errors = errors
        }

        deinit {
            // A child outliving its handle would outlive the test too.
            stop()
        }

        /// Waits for the child to end: its exit status, or 128 plus the signal that ended it.
        /// Blocks; async code uses ``Blocking``.
        @available(*, noasync, message: "blocks a thread of the cooperative pool; wrap it in Blocking.run")
        @discardableResult
        package func wait() -> Int32 {
            lock.lock()
            defer { lock.unlock() }
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) == -1 {
                // EINTR: wait again. ECHILD cannot happen: only this object reaps the child.
                guard errno == EINTR else {
                    exitStatus = -1
                    return -1
                }
            }
            // WIFEXITED and WEXITSTATUS, which are C macros Swift does not import.
            let signal = status & 0x7f
            let ended = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            exitStatus = ended
            return ended
        }

        /// Kills the child (SIGKILL: it cannot be blocked or caught) unless it has already been
        /// waited for, and waits for it.
        package func stop() {
            lock.lock()
            let running = exitStatus == nil
            // Only before it is reaped: afterwards its identifier may belong to another process.
            if running { kill(processIdentifier, SIGKILL) }
            lock.unlock()
            if running { wait() }
        }

        /// Runs a program to its end, on a thread of its own: its exit status and what it printed
        /// on its standard output (and on its standard error, unless `standardError` says otherwise).
        package static func run(
            _ executable: String, _ arguments: [String] = [], directory: String? = nil,
            environment: [String: String] = [:], standardError: Stream = .output
        ) async throws -> (status: Int32, output: String) {
            try await Blocking.run {
                try run(
                    executable, arguments, directory: directory, environment: environment,
                    standardError: standardError)
            }
        }

        /// Runs a program to its end: its exit status and what it printed on its standard output
        /// (and on its standard error, unless `standardError` says otherwise). Blocks until the
        /// program ends; async code calls the `async` overload.
        @available(*, noasync, message: "blocks a thread of the cooperative pool; use the async overload")
        package static func run(
            _ executable: String, _ arguments: [String] = [], directory: String? = nil,
            environment: [String: String] = [:], standardError: Stream = .output
        ) throws -> (status: Int32, output: String) {
            let child = try ChildProcess(
                executable, arguments, directory: directory, environment: environment,
                standardOutput: .pipe, standardError: standardError == .pipe ? .discard : standardError)
            // Read to the end before waiting: a child that fills the pipe would wait for us.
            let printed = child.output?.readToEnd() ?? Data()
            return (child.wait(), String(decoding: printed, as: UTF8.self))
        }

        /// A pipe whose two ends close when an `exec` succeeds.
        private static func makePipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw Failure(call: "pipe", code: errno) }
            // Not atomic with the pipe's creation (pipe2 is a GNU extension Swift's Glibc does not
            // declare): a child started meanwhile closes it anyway, before its exec.
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            #if canImport(Darwin)
                _ = fcntl(ends[1], F_SETNOSIGPIPE, 1)
            #endif
            return (ends[0], ends[1])
        }

        /// A system call that failed, with its error number.
        package typealias Failure = SystemCallFailure
    }

    /// The read end of a pipe from a child.
    package final class ReadablePipe: @unchecked Sendable {
        private let descriptor: Int32
        private let lock = NSLock()
        private var interrupted = 0

        /// How many reads a signal interrupted (each was tried again).
        package var interruptions: Int {
            lock.lock()
            defer { lock.unlock() }
            return interrupted
        }

        /// Takes `descriptor` (which it closes when it goes away), to read it.
        package init(descriptor: Int32) { self.descriptor = descriptor }

        deinit { _ = systemClose(descriptor) }

        /// What the child has written and this process has not read yet, waiting for at least
        /// one byte; empty once the child's end is closed (it exited) or on a read error.
        @available(*, noasync, message: "blocks a thread of the cooperative pool; wrap it in Blocking.run")
        package func read() -> Data {
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            while true {
                let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
                if count >= 0 { return Data(buffer[..<count]) }
                guard errno == EINTR else { return Data() }
                lock.lock()
                interrupted += 1
                lock.unlock()
            }
        }

        /// Everything the child writes, until it closes its end.
        @available(*, noasync, message: "blocks a thread of the cooperative pool; wrap it in Blocking.run")
        package func readToEnd() -> Data {
            var all = Data()
            while true {
                let chunk = read()
                if chunk.isEmpty { return all }
                all.append(chunk)
            }
        }

        /// Reads until what was read contains `marker` or the pipe ends: all that was read.
        @available(*, noasync, message: "blocks a thread of the cooperative pool; wrap it in Blocking.run")
        package func read(until marker: String) -> String {
            var text = ""
            while !text.contains(marker) {
                let chunk = read()
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
    }

    /// The write end of a pipe to a child's standard input.
    package final class WritablePipe: @unchecked Sendable {
        private let lock = NSLock()
        private var descriptor: Int32?

        init(descriptor: Int32) { self.descriptor = descriptor }

        deinit { close() }

        /// Writes all of `data`; false when the child no longer reads (it closed its end or
        /// exited) or the pipe is closed. Never raises SIGPIPE, which would end the test process.
        @discardableResult
        package func write(_ data: Data) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard let descriptor else { return false }
            #if os(Linux)
                // A write to a pipe nobody reads raises SIGPIPE on the writing thread: block it
                // here, and take the pending signal before unblocking (macOS marks the pipe
                // F_SETNOSIGPIPE instead).
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                var previous = sigset_t()
                pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
                defer {
                    var pending = sigset_t()
                    sigpending(&pending)
                    if sigismember(&pending, SIGPIPE) == 1 {
                        var now = timespec()
                        _ = sigtimedwait(&pipeSignal, nil, &now)
                    }
                    pthread_sigmask(SIG_SETMASK, &previous, nil)
                }
            #endif
            return data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count > 0 {
                        offset += count
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        return false
                    }
                }
                return true
            }
        }

        /// Closes this end: the child reads the end of its input.
        package func close() {
            lock.lock()
            defer { lock.unlock() }
            if let descriptor { _ = systemClose(descriptor) }
            descriptor = nil
        }
    }
#endif
