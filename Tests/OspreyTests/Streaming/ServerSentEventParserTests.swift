import Foundation
import Testing

@testable import Osprey

@Suite("Streaming: the event-stream parser (WHATWG HTML, server-sent events)")
struct ServerSentEventParserTests {
    private func parse(_ text: String) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return parser.feed(Array(text.utf8))
    }

    @Test("the standard's stock example: data lines joined with LF")
    func stock() {
        #expect(parse("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test("the standard's second example: comments, ids, a field without a colon, and an unfinished event")
    func ids() {
        let events = parse(
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n")
        #expect(
            events == [
                ServerSentEvent(id: "1", data: "first event"), ServerSentEvent(id: "", data: "second event"),
            ])
    }

    @Test("the standard's third example: an empty data line makes an empty event, two make a LF")
    func emptyData() {
        #expect(
            parse("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test("the standard's fourth example: one space after the colon is dropped, no more")
    func space() {
        #expect(parse("data:test\n\ndata: test\n\ndata:  test\n\n").map(\.data) == ["test", "test", " test"])
    }

    @Test("event types, retry (digits only), an id with NUL ignored, unknown fields ignored")
    func fields() {
        let events = parse(
            "event: add\nretry: 1500\nid: 7\nfoo: bar\ndata: x\n\nid: a\u{0}b\nretry: 1.5\ndata: y\n\n")
        #expect(
            events == [
                ServerSentEvent(id: "7", event: "add", data: "x", retry: 1500),
                ServerSentEvent(id: "7", event: "message", data: "y", retry: nil),
            ])
    }

    @Test("a leading byte order mark is dropped, once; CR, LF and CRLF all end lines")
    func bomAndLineEnds() {
        #expect(
            parse("\u{FEFF}data: a\r\n\r\ndata: b\r\rdata: c\n\n")
                == ["a", "b", "c"].map { ServerSentEvent(data: $0) })
        #expect(parse("\u{FEFF}\u{FEFF}data: a\n\n").isEmpty)  // the second BOM is part of a field name
    }

    /// A stream with every feature, split at every byte: the events never depend on the cuts.
    static let sample =
        "\u{FEFF}: hello\r\nevent: greet\r\ndata: héllo\r\ndata: wörld\r\nid: 1\r\n\r\n"
        + "retry: 250\rdata: second\r\rdata:third\n\n: bye\n"

    @Test("every split point of a sample stream gives the same events")
    func everySplit() {
        let bytes = Array(Self.sample.utf8)
        var whole = ServerSentEventParser()
        let expected = whole.feed(bytes)
        #expect(expected.count == 3)
        #expect(expected.first == ServerSentEvent(id: "1", event: "greet", data: "héllo\nwörld"))
        for cut in 0...bytes.count {
            for second in cut...bytes.count {
                var parser = ServerSentEventParser()
                let events =
                    parser.feed(bytes[..<cut]) + parser.feed(bytes[cut..<second])
                    + parser.feed(bytes[second...])
                #expect(events == expected, "cut at \(cut) and \(second)")
                if events != expected { return }
            }
        }
    }

    @Test("a line longer than 1 MiB is cut, not kept whole")
    func longLine() {
        var parser = ServerSentEventParser()
        let chunk = [UInt8]("data: ".utf8) + [UInt8](repeating: 0x61, count: 600_000)
        _ = parser.feed(chunk)
        _ = parser.feed([UInt8](repeating: 0x61, count: 600_000))
        let events = parser.feed(Array("\n\n".utf8))
        #expect(events.first?.data.utf8.count == ServerSentEventParser.maximumLineBytes - 6)
    }
}

@Suite("Streaming: lines")
struct LineSplitterTests {
    @Test("CRLF, LF and CR end lines, across pieces; the last line needs no end")
    func lines() {
        var splitter = LineSplitter()
        var lines = splitter.feed(Array("a\r".utf8))
        lines += splitter.feed(Array("\nb\rc\n\nd".utf8))
        #expect(lines == ["a", "b", "c", ""])
        #expect(splitter.finish() == "d")
        #expect(splitter.finish() == nil)
    }

    @Test("lines are decoded in the response's charset")
    func charset() {
        var latin1 = LineSplitter(
            encoding: LineSplitter.encoding(ofContentType: "text/plain; charset=ISO-8859-1"))
        #expect(latin1.feed([0x63, 0x61, 0x66, 0xE9, 0x0A]) == ["café"])
        #expect(LineSplitter.encoding(ofContentType: "text/plain") == .utf8)
        #expect(LineSplitter.encoding(ofContentType: "text/plain; charset=\"us-ascii\"") == .ascii)
    }
}

@Suite("Streaming: the event-stream parser's limits and carried state")
struct ServerSentEventParserLimitTests {
    @Test("data lines past the event limit stop the parser before they are kept")
    func eventLimit() {
        var parser = ServerSentEventParser()
        let line = Array(("data: " + String(repeating: "a", count: 64 * 1024) + "\n").utf8)
        #expect(parser.feed(Array("data: small\n\n".utf8)) == [ServerSentEvent(data: "small")])
        // Values, not the parser, in the expectations: a failure must not print megabytes.
        var fed = 0
        var mostHeld = 0
        while !parser.isOverLimit, fed < 2 * ServerSentEventParser.maximumEventBytes {
            let events = parser.feed(line).count
            #expect(events == 0)
            fed += line.count
            mostHeld = max(mostHeld, parser.pendingEventBytes)
        }
        // Never more than the limit held, not even for the line that passes it.
        #expect(mostHeld <= ServerSentEventParser.maximumEventBytes)
        let isOverLimit = parser.isOverLimit
        #expect(isOverLimit)
        #expect(fed <= ServerSentEventParser.maximumEventBytes + line.count)
        let heldAfter = parser.pendingEventBytes
        #expect(heldAfter == 0)
        // The rest of the stream is ignored: no event made of what came before or after.
        let later = parser.feed(Array("\ndata: later\n\n".utf8)).count
        #expect(later == 0)
    }

    @Test("a long event type or id counts toward the limit too")
    func fieldsCount() {
        var parser = ServerSentEventParser()
        // Lines under the line cap: four make 4,000,003 bytes of data, under the 4 MiB limit.
        let data = Array("data: \(String(repeating: "x", count: 1_000_000))\n".utf8)
        var events = 0
        for _ in 0..<4 { events += parser.feed(data).count }
        let underAfterData = !parser.isOverLimit
        events += parser.feed(Array("id: \(String(repeating: "y", count: 100_000))\n".utf8)).count
        let underAfterID = !parser.isOverLimit
        events += parser.feed(Array("event: \(String(repeating: "z", count: 100_000))\n".utf8)).count
        let overAfterEvent = parser.isOverLimit
        #expect(events == 0)
        #expect(underAfterData)
        #expect(underAfterID)
        #expect(overAfterEvent)
    }

    @Test("a parser started with a last event ID gives it to events without id:, until one changes it")
    func seededLastEventID() {
        var parser = ServerSentEventParser(lastEventID: "7")
        #expect(
            parser.feed(Array("data: a\n\nid: 8\ndata: b\n\ndata: c\n\n".utf8)).map(\.id) == ["7", "8", "8"])
        #expect(parser.lastEventID == "8")
    }
}
