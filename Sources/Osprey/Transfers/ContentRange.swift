import Foundation

/// A `Content-Range: bytes first-last/complete` header of a `206` (RFC 9110 §14.4).
package struct ContentRange: Equatable {
    package var first: Int64
    package var last: Int64
    /// The full length, or nil for `*`.
    package var complete: Int64?

    /// Parses the header; nil for anything else (another unit, several ranges, nonsense).
    package init?(_ header: String) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0,
            last >= first
        else { return nil }
        self.first = first
        self.last = last
        if halves[1] == "*" {
            complete = nil
        } else {
            guard let complete = Int64(halves[1]), complete > last else { return nil }
            self.complete = complete
        }
    }
}
