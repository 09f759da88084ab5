import Foundation
import Osprey

/// A `Content-Range` value of a `206`.
enum ContentRangeTarget {
    static func run(_ input: Data) {
        guard let range = ContentRange(String(decoding: input, as: UTF8.self)) else { return }
        precondition(range.first >= 0 && range.first <= range.last, "\(range)")
        if let complete = range.complete { precondition(complete > range.last, "\(range)") }
    }
}
