import Foundation
import OspreyTestSupport
import OspreyTesting
import Testing

#if os(Linux)
    import Glibc

    /// The test suites' way of starting programs (OspreyTesting's ChildProcess), which replaced
    /// Foundation's `Process` after it crashed a CI run.
    @Suite("ChildProcess: programs the tests start", .onItsOwnThread)
    struct ChildProcessTests {
        @Test("run returns the exit status and standard output and error in the order written")
        func runCaptures() throws {
            let (status, output) = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
            #expect(status == 3)
            #expect(output == "out\nerr\n")
        }

        @Test("standard error can be left out of what run returns")
        func runWithoutErrors() throws {
            let (status, output) = try ChildProcess.run(
                "/bin/sh", ["-c", "echo out; echo err >&2"], standardError: .discard)
            #expect(status == 0)
            #expect(output == "out\n")
        }

        @Test("a program that does not exist is an error thrown, not a crash")
        func missingProgram() {
            #expect(throws: ChildProcess.Failure.self) {
                try ChildProcess("/nonexistent/osprey-no-such-program")
            }
        }

        @Test("a child holds only its three standard streams, not this process's descriptors")
        func closesInheritedDescriptors() throws {
            // A pipe without close-on-exec: Foundation's Process passed such descriptors on
            // when another thread opened them while it listed the ones to close.
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            defer { for end in ends { close(end) } }
            let cat = try ChildProcess("/bin/cat", standardInput: .pipe, standardOutput: .pipe)
            defer { cat.stop() }
            // A line echoed back: cat is in its loop, past the dynamic loader, which briefly
            // holds descriptor 3 open for the libraries it maps (seen once).
            #expect(cat.input?.write(Data("ready\n".utf8)) == true)
            #expect(cat.output?.read(until: "\n") == "ready\n")
            let folder = "/proc/\(cat.processIdentifier)/fd"
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: folder)
            let targets = descriptors.sorted().map {
                "\($0) -> "
                    + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")) ?? "?")
            }
            #expect(descriptors.sorted() == ["0", "1", "2"], "\(targets)")
        }

        @Test("a child starts with no signal blocked, whatever the starting thread blocks")
        func unblocksSignals() throws {
            var terminate = sigset_t()
            sigemptyset(&terminate)
            sigaddset(&terminate, SIGTERM)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &terminate, &previous)
            let cat: ChildProcess
            do {
                defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
                cat = try ChildProcess("/bin/cat", standardInput: .pipe)
            }
            defer { cat.stop() }
            let status = try String(contentsOfFile: "/proc/\(cat.processIdentifier)/status", encoding: .utf8)
            let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
            #expect(blocked?.split(separator: "\t").last == "0000000000000000", "\(blocked ?? "")")
            // And it dies of SIGTERM: 128 + 15.
            kill(cat.processIdentifier, SIGTERM)
            #expect(cat.wait() == 143)
        }

        @Test("stop kills a running child and reports the signal; a second stop does nothing")
        func stopKills() throws {
            let cat = try ChildProcess("/bin/cat", standardInput: .pipe)
            cat.stop()
            #expect(cat.wait() == 128 + SIGKILL)
            cat.stop()
            #expect(cat.wait() == 128 + SIGKILL)
        }

        @Test("writing to a child that has exited fails, without SIGPIPE ending this process")
        func writeAfterExit() throws {
            let child = try ChildProcess("/bin/true", standardInput: .pipe)
            #expect(child.wait() == 0)
            let input = try #require(child.input)
            // More than a pipe holds, so that a write would block if anyone still read it.
            #expect(!input.write(Data(count: 1 << 20)))
            // The signal was taken, not left pending for this thread.
            var pending = sigset_t()
            sigpending(&pending)
            #expect(sigismember(&pending, SIGPIPE) == 0)
        }

        @Test("a read interrupted by a signal is tried again, not ended or crashed")
        func interruptedRead() throws {
            // A handler without SA_RESTART, so that the signal interrupts a blocked read (EINTR)
            // instead of the kernel restarting it: what Foundation's FileHandle ended in try! on.
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var previous = sigaction()
            try #require(sigaction(SIGUSR1, &action, &previous) == 0)
            defer { sigaction(SIGUSR1, &previous, nil) }

            // The child answers only once it reads a line, so the reader blocks until then.
            let child = try ChildProcess(
                "/bin/sh", ["-c", "read line; echo \"got $line\""], standardInput: .pipe,
                standardOutput: .pipe)
            defer { child.stop() }
            let output = try #require(child.output)
            let reader = ReaderThread { output.readToEnd() }
            // Signal the reader until one of its reads has been interrupted (bounded: a reader
            // that never blocks in read fails the expectation below instead of hanging).
            let deadline = Date().addingTimeInterval(10)
            while output.interruptions == 0, Date() < deadline { reader.signal(SIGUSR1) }
            #expect(output.interruptions > 0)
            #expect(child.input?.write(Data("x\n".utf8)) == true)
            child.input?.close()
            #expect(String(decoding: reader.result(), as: UTF8.self) == "got x\n")
            #expect(child.wait() == 0)
        }
    }

    /// A thread of its own running `body`, which other threads can send signals to.
    private final class ReaderThread: @unchecked Sendable {
        private let lock = NSLock()
        private var thread: pthread_t?
        private var value: Data?
        private let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping @Sendable () -> Data) {
            let started = DispatchSemaphore(value: 0)
            Thread {
                // Threads may start with signals blocked (the test runner's do): unblock them.
                var all = sigset_t()
                sigfillset(&all)
                pthread_sigmask(SIG_UNBLOCK, &all, nil)
                self.lock.lock()
                self.thread = pthread_self()
                self.lock.unlock()
                started.signal()
                let value = body()
                self.lock.lock()
                self.value = value
                self.lock.unlock()
                self.done.signal()
            }.start()
            started.wait()
        }

        /// Sends `signal` to the thread while it runs.
        func signal(_ signal: Int32) {
            lock.lock()
            defer { lock.unlock() }
            if value == nil, let thread { pthread_kill(thread, signal) }
        }

        /// What `body` returned, once it has.
        func result() -> Data {
            done.wait()
            lock.lock()
            defer { lock.unlock() }
            return value ?? Data()
        }
    }
#endif
