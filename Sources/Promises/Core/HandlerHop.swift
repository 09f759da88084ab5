import Dispatch

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Hands a handler to its queue, eliding the hop where a chain stays on one queue.
///
/// A handler that settles its derived promise on queue Q, whose next handler also runs on Q,
/// would send that handler through dispatch to the very queue it is on. Instead, the next
/// handler runs right after this one returns, in the same turn of Q (a loop, not recursion),
/// up to `maximumInPlace` handlers, after which the rest go through dispatch so that Q's other
/// work is not held up for long. A chain of `then`s on one queue then costs a lock and a call
/// per step instead of a dispatch round trip (shared/reference/promises.md, "Hop elision").
///
/// What stays true: every handler runs on its queue, never on the thread that registered or
/// settled it from elsewhere, and never inside another handler's user code. Only the one
/// handler a settlement hands to Q first is taken in place, and only while the finishing
/// handler is settling its derived promise (its user code has returned), so no handler waits
/// behind another one's user code that might be waiting for it.
@usableFromInline
enum HandlerHop {
    /// How many handlers one turn of a queue runs in place before the rest take dispatch.
    static let maximumInPlace = 64

    /// One turn of a queue: the handler that started it, and the ones it runs in place after.
    /// Lives on the stack of `finish`, reached from the thread through `Turn.current`.
    @usableFromInline
    struct Turn {
        let queue: DispatchQueue
        /// The handler to run next in this turn.
        var next: (@Sendable () -> Void)?
        /// How many handlers this turn has taken in place.
        var taken = 0
        /// Set while a handler settles its derived promise: the one time a handler may be taken.
        var accepting = false
        /// Set just before `next` runs, and claimed by it before any user code.
        var handing = false
    }

    /// The thread's current turn, if it is running handlers on a queue.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var current: UnsafeMutablePointer<Turn>? {
        get { pthread_getspecific(key)?.assumingMemoryBound(to: Turn.self) }
        set { pthread_setspecific(key, newValue) }
    }

    /// Runs `work` on `queue`: in the current turn when the thread is settling a handler's
    /// derived promise on that same queue, through dispatch otherwise. `work` must start with
    /// `claim()` and end with `finish(_:on:_:)`.
    @inlinable
    static func run(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        if !takeInPlace(queue, work) { queue.async(execute: work) }
    }

    @usableFromInline
    static func takeInPlace(_ queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) -> Bool {
        guard let turn = current, turn.pointee.accepting, turn.pointee.next == nil,
            turn.pointee.taken < maximumInPlace, turn.pointee.queue === queue
        else { return false }
        turn.pointee.next = work
        turn.pointee.taken += 1
        return true
    }

    /// Called first by a handler's work: the turn that ran it in place, or nil when dispatch
    /// did. Read before any user code, so a turn nested inside that code cannot be mistaken
    /// for the one that ran this handler.
    @usableFromInline
    static func claim() -> UnsafeMutablePointer<Turn>? {
        guard let turn = current, turn.pointee.handing else { return nil }
        turn.pointee.handing = false
        return turn
    }

    /// Called last by a handler's work, once its user code returned: `settle` settles the
    /// derived promise, and a handler it hands to the same queue runs next in this turn.
    @usableFromInline
    static func finish(_ claimed: UnsafeMutablePointer<Turn>?, on queue: DispatchQueue, _ settle: () -> Void)
    {
        if let claimed {
            // Run in place: the loop further up this stack runs what this settlement hands over.
            claimed.pointee.accepting = true
            settle()
            claimed.pointee.accepting = false
            return
        }
        var turn = Turn(queue: queue)
        withUnsafeMutablePointer(to: &turn) { turn in
            let outer = current
            current = turn
            defer { current = outer }
            turn.pointee.accepting = true
            settle()
            turn.pointee.accepting = false
            while let next = turn.pointee.next {
                turn.pointee.next = nil
                turn.pointee.handing = true
                next()
            }
        }
    }
}
