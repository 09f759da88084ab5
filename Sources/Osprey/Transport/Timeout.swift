import Foundation

/// A timeout or deadline as the pipeline and the transports apply it: nil, NaN, infinite or
/// longer than a century means none (`Dispatch` and FoundationNetworking trap on intervals that
/// do not fit their integers); a negative one has already passed.
func effectiveTimeout(_ seconds: TimeInterval?) -> TimeInterval? {
    guard let seconds, !seconds.isNaN, seconds < 100 * 365 * 86_400 else { return nil }
    return max(0, seconds)
}
