/// The value last computed for a key, kept so that asking again for the same key costs a
/// comparison instead of the work: an API sends its requests against one base URL, and often to
/// the same URL again (polling, paging). One entry only, shared by every thread.
final class LastValue<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let last = Locked<(key: Key, value: Value)?>(nil)

    /// The value for `key`: the one kept if it was computed for `key`, else `compute(key)`, which
    /// is then kept (unless it throws).
    func value(for key: Key, _ compute: (Key) throws -> Value) rethrows -> Value {
        if let last = last.withLock({ $0 }), last.key == key { return last.value }
        let value = try compute(key)
        last.withLock { $0 = (key, value) }
        return value
    }
}
