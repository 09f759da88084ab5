import Dispatch
import Testing

@testable import Promises

@Suite("Locked: the package's one lock")
struct LockedTests {
    @Test("withLock gives exclusive access: concurrent increments are never lost")
    func exclusiveAccess() {
        let counter = Locked(0)
        let iterations = 200_000
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<iterations / 4 {
                counter.withLock { $0 += 1 }
            }
        }
        #expect(counter.withLock { $0 } == iterations)
    }

    @Test("withLock returns the body's result and rethrows its error")
    func resultAndError() {
        struct Failure: Error {}
        let box = Locked([1, 2])
        #expect(box.withLock { $0.count } == 2)
        #expect(throws: Failure.self) { try box.withLock { _ in throw Failure() } }
        #expect(box.withLock { $0 } == [1, 2])
    }
}
