import Foundation

/// Counts the requests inside the server's handlers, and holds each one until `expected` have
/// been inside at once (or half a second has passed), then a tenth of a second more.
///
/// Requests that really run concurrently all pass together, while requests sent one after
/// another each wait, and ``highest`` shows it, however fast the machine is. The extra tenth of
/// a second gives a client that sends more than `expected` at once the time to show it.
final class Overlap: @unchecked Sendable {
    // @unchecked: every stored property is read and written with `condition` locked.

    private let condition = NSCondition()
    private var expected = 1
    private var inside = 0
    private var highestInside = 0

    /// The most requests that were inside at once since the last ``expect(_:)``.
    var highest: Int {
        condition.lock()
        defer { condition.unlock() }
        return highestInside
    }

    /// Starts counting again, holding requests until `count` are inside at once.
    func expect(_ count: Int) {
        condition.lock()
        defer { condition.unlock() }
        expected = count
        highestInside = inside
    }

    /// A request comes in; returns once enough are inside (or after half a second), and a
    /// tenth of a second later.
    func enter() {
        condition.lock()
        defer { condition.unlock() }
        inside += 1
        highestInside = max(highestInside, inside)
        condition.broadcast()
        let deadline = Date().addingTimeInterval(0.5)
        // The highest count, not the current one: once reached, the later requests need not
        // wait for company that has already left.
        while highestInside < expected, condition.wait(until: deadline) {}
        let grace = Date().addingTimeInterval(0.1)
        while condition.wait(until: grace) {}
    }

    /// A request has its answer.
    func leave() {
        condition.lock()
        defer { condition.unlock() }
        inside -= 1
    }
}
