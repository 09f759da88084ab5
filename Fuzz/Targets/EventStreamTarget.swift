import Foundation
import Osprey

/// A `text/event-stream` body cut at two places the input picks: the events (and the lines) must
/// not depend on where the pieces end.
enum EventStreamTarget {
    static func run(_ input: Data) {
        guard input.count >= 2 else { return }
        let body = Array(input.dropFirst(2))
        let first = Int(input[input.startIndex]) * body.count / 256
        let second = first + (body.count - first) * Int(input[input.startIndex + 1]) / 256
        var whole = ServerSentEventParser()
        let expected = whole.feed(body)
        var cut = ServerSentEventParser()
        let events = cut.feed(body[..<first]) + cut.feed(body[first..<second]) + cut.feed(body[second...])
        precondition(events == expected, "events depend on where the body was cut")
        precondition(whole.lastEventID == cut.lastEventID && whole.reconnectionTime == cut.reconnectionTime)
        precondition(whole.isOverLimit == cut.isOverLimit, "the event size limit depends on the cuts")
        for event in events { precondition(!event.event.isEmpty) }

        var wholeLines = LineSplitter()
        var cutLines = LineSplitter()
        let lines = wholeLines.feed(body) + [wholeLines.finish()].compactMap { $0 }
        let pieces =
            cutLines.feed(body[..<first]) + cutLines.feed(body[first..<second])
            + cutLines.feed(body[second...])
        precondition(pieces + [cutLines.finish()].compactMap { $0 } == lines, "lines depend on the cuts")
    }
}
