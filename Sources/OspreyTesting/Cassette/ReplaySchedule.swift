import Foundation
import Osprey

/// When a replay hands over each part of a recorded response, keeping the recorded timing: the
/// head after the recorded time to the first byte, each piece of the body when it arrived (or,
/// for a recording that does not say, spread evenly over the receiving time), and the end at
/// the recorded total. Where the request's limits would have cut the recorded exchange short,
/// the schedule stops with a timeout instead, as the transport would have.
struct ReplaySchedule {
    /// A part of the replay.
    enum Step: Equatable {
        /// The response's head.
        case head
        /// The piece of the body at this index.
        case piece(Int)
        /// The end of the response.
        case end
        /// The request's idle timeout or deadline.
        case timeout
    }

    /// The steps in order, each with its time in seconds after the request was sent.
    private(set) var steps: [(at: TimeInterval, step: Step)]

    /// Every step at once, no timing kept.
    static func immediate(pieces: Int) -> ReplaySchedule {
        ReplaySchedule(steps: [(0, .head)] + (0..<pieces).map { (0, .piece($0)) } + [(0, .end)])
    }

    private init(steps: [(at: TimeInterval, step: Step)]) {
        self.steps = steps
    }

    /// The recorded timing of `entry`, whose body is replayed in `pieces` pieces, cut where
    /// `idleTimeout` (the longest wait for the head or the next piece) or `deadline` (the whole
    /// exchange) would have stopped it.
    init(recorded entry: HAR.Entry, pieces: Int, idleTimeout: TimeInterval?, deadline: TimeInterval?) {
        let total = max(0, entry.time) / 1000
        let receive = min(total, max(0, entry.timings.receive) / 1000)
        let head = total - receive
        let times: [TimeInterval]
        if let recorded = entry.response.content.chunkTimes, recorded.count == pieces,
            zip(recorded, recorded.dropFirst()).allSatisfy({ $0 <= $1 })
        {
            times = recorded.map { max(head, $0 / 1000) }
        } else {
            times = (0..<pieces).map { head + receive * Double($0 + 1) / Double(pieces) }
        }
        let events =
            [(head, Step.head)] + times.enumerated().map { ($1, .piece($0)) }
            + [(max(total, times.last ?? head), .end)]
        var steps: [(at: TimeInterval, step: Step)] = []
        var previous: TimeInterval = 0
        for (at, step) in events {
            // Waiting for the end is not waiting for bytes: only the deadline limits it.
            var cut = deadline.flatMap { at > $0 ? $0 : nil }
            if let idleTimeout, step != .end, at - previous > idleTimeout {
                cut = min(cut ?? .infinity, previous + idleTimeout)
            }
            if let cut {
                steps.append((cut, .timeout))
                break
            }
            steps.append((at, step))
            previous = at
        }
        self.steps = steps
    }

}
