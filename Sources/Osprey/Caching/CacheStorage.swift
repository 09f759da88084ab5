import Foundation
import Promises

/// Where an ``HTTPCache`` keeps its entries: every variant of a key (one per set of request
/// header values the response varies on) is read and written together. Calls come from any
/// thread.
protocol CacheStorage: Sendable {
    /// The variants kept for `key`, most recent first; none when nothing sound is kept.
    func entries(for key: String) -> [CachedResponse]
    /// Keeps `entries` for `key` in place of what was there (none removes the key), then
    /// evicts the least recently used keys until the store is within its limit.
    func store(_ entries: [CachedResponse], for key: String)
    /// Forgets every entry.
    func removeAll()
    /// Bytes held now.
    var totalBytes: Int64 { get }
    /// The key of the digests that stand for credentials in the entries (``CacheCredentials``).
    var credentialKey: [UInt8] { get }
}

/// Entries in memory, the least recently used evicted past the byte limit.
final class MemoryCacheStorage: CacheStorage {
    private struct Slot {
        var entries: [CachedResponse]
        var size: Int64
        var lastUse: UInt64
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var total: Int64 = 0
        var clock: UInt64 = 0
    }

    private let limit: Int64
    private let state = Locked(State())
    let credentialKey = HMACSHA256.makeKey()

    init(maximumBytes: Int64) {
        limit = maximumBytes
    }

    func entries(for key: String) -> [CachedResponse] {
        state.withLock { state in
            guard var slot = state.slots[key] else { return [] }
            state.clock += 1
            slot.lastUse = state.clock
            state.slots[key] = slot
            return slot.entries
        }
    }

    func store(_ entries: [CachedResponse], for key: String) {
        let size = Int64(entries.reduce(0) { $0 + $1.size })
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) { state.total -= old.size }
            guard !entries.isEmpty, size <= limit else { return }
            state.clock += 1
            state.slots[key] = Slot(entries: entries, size: size, lastUse: state.clock)
            state.total += size
            while state.total > limit,
                let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.slots[oldest.key] = nil
                state.total -= oldest.value.size
            }
        }
    }

    func removeAll() {
        state.withLock { state in
            state.slots = [:]
            state.total = 0
        }
    }

    var totalBytes: Int64 { state.withLock { $0.total } }
}
