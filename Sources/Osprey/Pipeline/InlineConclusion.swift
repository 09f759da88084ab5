import Dispatch
import Foundation

/// A transport whose promises settle on a queue of its own (``URLSessionTransport``: its serial
/// delegate queue; ``CurlTransport``: a concurrent delivery queue), never on a caller's thread or
/// the main queue, where a short piece of work may run without holding up anyone who matters.
package protocol SettlesOnItsOwnQueue: HTTPTransport {}

/// Whether an API may finish a response where its transport completed (validate, parse, map the
/// error, settle the promise) instead of hopping to its request queue first: a hop saved for
/// small bodies, as long as that work stays short.
///
/// The work runs on the transport's delegate queue, which every transfer of the session shares,
/// so a slow parser there would hold up the other transfers' data. The budget watches: once a
/// response takes longer than ``slowWork`` to finish there, the API's next ``coolingOff``
/// responses hop to the request queue, and then it tries again.
final class InlineConclusion: Sendable {
    /// The largest body finished where it arrived.
    static let bodyLimit = 64 * 1024
    /// Inline work longer than this moves the API's next responses off the transport's queue.
    static let slowWork: UInt64 = 2_000_000
    /// How many responses then hop before inline work is tried again.
    static let coolingOff = 256

    /// Responses left to send to the request queue before trying inline work again.
    private let hopsLeft = Locked(0)

    /// Whether the next response may be finished inline; counts down the cooling-off period.
    func allowsInlineWork() -> Bool {
        hopsLeft.withLock { hopsLeft in
            guard hopsLeft > 0 else { return true }
            hopsLeft -= 1
            return false
        }
    }

    /// Records how long inline work took (in nanoseconds of uptime).
    func record(nanoseconds: UInt64) {
        guard nanoseconds > Self.slowWork else { return }
        hopsLeft.withLock { $0 = Self.coolingOff }
    }
}
