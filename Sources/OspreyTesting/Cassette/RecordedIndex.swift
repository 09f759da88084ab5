import Foundation
import Osprey

/// The recorded exchanges and which of them have answered, found by method and URL in constant
/// time: a replay of 10,000 recorded requests of one URL must not compare each with all.
struct RecordedIndex {
    /// A request's method and URL, the query's order ignored.
    struct Key: Hashable {
        let method: String
        let url: URLKey

        init(_ request: HAR.Request) {
            method = request.method.uppercased()
            url = URLKey(request.url)
        }
    }

    /// The unused entries of one key, in recorded order.
    private struct Bucket {
        var indexes: [Int] = []
        var start = 0
    }

    private(set) var entries: [HAR.Entry] = []
    /// Each entry's request as redacted: what requests are compared with.
    private var requests: [HAR.Request] = []
    private var buckets: [Key: Bucket] = [:]
    private var used: [Bool] = []

    /// Adds an entry, already redacted; `used` when it was just recorded (it answered its request).
    mutating func append(_ entry: HAR.Entry, redactedRequest: HAR.Request, used isUsed: Bool) {
        let index = entries.count
        entries.append(entry)
        requests.append(redactedRequest)
        used.append(isUsed)
        if !isUsed { buckets[Key(redactedRequest), default: Bucket()].indexes.append(index) }
    }

    /// The first unused entry that `matching` accepts for `request` (redacted), marked used.
    mutating func take(_ request: HAR.Request, matching: Cassette.Matching) -> HAR.Entry? {
        guard matching.comparesMethodAndURL else { return takeScanning(request, matching: matching) }
        let key = Key(request)
        guard var bucket = buckets[key] else { return nil }
        defer { buckets[key] = bucket.start == bucket.indexes.count ? nil : bucket }
        for position in bucket.start..<bucket.indexes.count {
            let index = bucket.indexes[position]
            guard matching.hasOnlyMethodAndURL || matching.matches(request, requests[index]) else { continue }
            if position == bucket.start {
                bucket.start += 1
            } else {
                bucket.indexes.remove(at: position)
            }
            used[index] = true
            return entries[index]
        }
        return nil
    }

    /// The recorded request most like `request`: the same method and path first, then the same
    /// path, then the most query items in common.
    func nearest(to request: HAR.Request) -> HAR.Request? {
        let sentKey = URLKey(request.url)
        return requests.max { score($0) < score($1) }
        func score(_ recorded: HAR.Request) -> Int {
            let key = URLKey(recorded.url)
            return (recorded.method == request.method ? 4 : 0) + (key.base == sentKey.base ? 8 : 0)
                + Set(key.query).intersection(sentKey.query).count
        }
    }

    /// For a custom matching: every unused entry in recorded order.
    private mutating func takeScanning(_ request: HAR.Request, matching: Cassette.Matching) -> HAR.Entry? {
        for index in entries.indices where !used[index] && matching.matches(request, requests[index]) {
            used[index] = true
            let key = Key(requests[index])
            if var bucket = buckets[key], let position = bucket.indexes[bucket.start...].firstIndex(of: index)
            {
                if position == bucket.start { bucket.start += 1 } else { bucket.indexes.remove(at: position) }
                buckets[key] = bucket
            }
            return entries[index]
        }
        return nil
    }
}
