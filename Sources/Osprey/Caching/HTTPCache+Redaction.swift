import Foundation

// A cache holds the key of its credential digests: with it, a weak password could be found again
// from a digest. Printed in any way, a cache shows its size and kind alone.
extension HTTPCache: CustomStringConvertible, CustomReflectable {
    /// The cache's kind and the bytes it holds.
    public var description: String {
        "HTTPCache(\(isShared ? "shared" : "private"), \(totalBytes) bytes)"
    }

    /// The same for `dump` and debuggers: no key, no entry.
    public var customMirror: Mirror {
        Mirror(self, children: ["isShared": isShared, "totalBytes": totalBytes], displayStyle: .class)
    }
}
