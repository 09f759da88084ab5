import Foundation

/// A task executor whose threads belong to it alone, as many as the work it is given needs: a
/// job arriving while every thread is busy (or blocked) starts a new thread rather than wait.
///
/// Tests that wait in a straight line (raw sockets, child processes) run on one of these (see the `.onItsOwnThread` trait of the test targets' support module), so they
/// can block as they like without stalling the cooperative pool every other test shares. A job
/// never waits for another to finish, so a test whose child tasks wait on each other cannot
/// deadlock here.
package final class BlockingThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idleThreads = 0
    /// Idle threads already signalled for a job they have not taken yet.
    private var wakeups = 0
    private var closed = false
    private let name: String

    /// An executor whose threads carry `name` (at most 15 bytes show on Linux), for debuggers
    /// and `perf`.
    package init(name: String = "osprey-test") {
        self.name = name
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let wakesIdleThread = idleThreads > wakeups
        if wakesIdleThread {
            wakeups += 1
            condition.signal()
        }
        condition.unlock()
        if !wakesIdleThread { startThread() }
    }

    /// Lets the threads end once the jobs given so far have run; a job enqueued later still
    /// runs, on a thread started for it.
    package func shutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func startThread() {
        Thread { [self] in
            DedicatedThread.mark(.executor, name: name)
            work()
        }.start()
    }

    private func work() {
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
            } else if closed {
                condition.unlock()
                return
            } else {
                idleThreads += 1
                condition.wait()
                idleThreads -= 1
                if wakeups > 0 { wakeups -= 1 }
            }
        }
    }
}
