import Foundation
import OspreyTestSupport
import OspreyTesting
import Testing

@Suite("Blocking: work that blocks runs on threads of its own, never the cooperative pool")
struct BlockingTests {
    @Test("Blocking.run runs its body on a thread of its own and returns or throws what it did")
    func run() async throws {
        #expect(await Blocking.run { DedicatedThread.current } == .blocking)
        #expect(DedicatedThread.current == nil)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await Blocking.run { () throws -> Int in throw Refused() } }
    }

    @Test("BlockingThreads starts another thread while one is blocked: children that wait on each other end")
    func childrenWaitingOnEachOther() async throws {
        let threads = BlockingThreads(name: "blocking-test")
        defer { threads.shutdown() }
        let released = DispatchSemaphore(value: 0)
        let results = await withTaskExecutorPreference(threads) {
            await withTaskGroup(of: (DedicatedThread?, Bool).self) { group in
                // The first child blocks its thread until the second has run: on one thread,
                // or on any executor that waits for a free thread, it would time out.
                group.addTask { (DedicatedThread.current, released.wait(timeout: .now() + 10) == .success) }
                group.addTask {
                    released.signal()
                    return (DedicatedThread.current, true)
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.0 == .executor && $0.1 })
    }

    @Test("a job enqueued after shutdown still runs")
    func afterShutdown() async {
        let threads = BlockingThreads(name: "blocking-late")
        threads.shutdown()
        #expect(await withTaskExecutorPreference(threads) { DedicatedThread.current } == .executor)
    }
}

@Suite("The .onItsOwnThread trait", .onItsOwnThread)
struct OnItsOwnThreadTests {
    @Test("a synchronous test of the suite runs on the trait's threads")
    func synchronous() {
        #expect(DedicatedThread.current == .executor)
    }

    @Test("an async test runs there too, before and after it suspends")
    func asynchronous() async throws {
        #expect(DedicatedThread.current == .executor)
        try await Task.sleep(for: .milliseconds(1))
        #expect(DedicatedThread.current == .executor)
    }
}
