import Foundation

extension ServerSentEvent {
    /// The event as a `text/event-stream` sends it: `id`, `event` (unless `message`), one `data`
    /// line per line of data (a line ends at CR, LF or CRLF, as a reader splits them), `retry`,
    /// and the blank line that dispatches it. Line breaks in `id` and `event` are left out: a
    /// reader would take what follows them for fields of their own.
    public var wireFormat: String {
        var text = ""
        if let id { text += "id: \(Self.lines(of: id).joined())\n" }
        if event != "message" { text += "event: \(Self.lines(of: event).joined())\n" }
        for line in Self.lines(of: data) {
            text += "data: \(line)\n"
        }
        if let retry { text += "retry: \(retry)\n" }
        return text + "\n"
    }

    /// `text` cut at every CR, LF and CRLF, by Unicode scalars: as characters, `"\r\n"` is one
    /// that equals neither, and a mark that prepends to the next scalar joins a break into its
    /// character. (`LineSplitter` splits the same way but cuts lines at 1 MiB, which would lose
    /// data here.)
    private static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var line = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n", afterCR {
                afterCR = false
                continue
            }
            afterCR = scalar == "\r"
            if scalar == "\r" || scalar == "\n" {
                lines.append(String(line))
                line = String.UnicodeScalarView()
            } else {
                line.append(scalar)
            }
        }
        lines.append(String(line))
        return lines
    }
}

extension ResponseStream {
    /// A stream that answers with `pieces` and ends (or fails with `error`), without a network:
    /// for tests, and for `@Mock` clients whose requirements return a stream.
    /// - Parameters:
    ///   - pieces: The body, piece by piece.
    ///   - statusCode: The head's status.
    ///   - headers: The head's headers.
    ///   - error: Ends the stream with this error after the pieces, instead of the end.
    public static func scripted(
        _ pieces: [Data], statusCode: Int = 200, headers: HTTPHeaders = [:], error: (any Error)? = nil
    ) -> ResponseStream {
        let url = URL(string: "http://scripted.invalid/")!
        let buffer = StreamBuffer(capacity: Swift.max(1, pieces.reduce(0) { $0 + $1.count }))
        if let response = HTTPURLResponse(
            url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
        {
            buffer.begin(ResponseHead(response, request: URLRequest(url: url)))
        }
        for piece in pieces { buffer.append(piece) }
        let completion: Promise<Void> = error.map { Promise(error: $0) } ?? Promise(value: ())
        return ResponseStream(buffer: buffer, completion: completion, defaultQueue: .global())
    }
}

extension ServerSentEvents {
    /// A source that delivers `events` once, then ends (as after a `204`), or fails with `error`,
    /// without a network: for tests, and for `@Mock` clients whose requirements return events.
    /// - Parameters:
    ///   - events: The events, delivered in order.
    ///   - error: Stops the source with this error after the events, instead of the end.
    public static func scripted(_ events: [ServerSentEvent], error: (any Error)? = nil) -> ServerSentEvents {
        let body = Data(events.map(\.wireFormat).joined().utf8)
        let served = Locked(false)
        // No network to spare: the end (the scripted 204) comes without a wait.
        let reconnection = Reconnection(initialDelay: 0, minimumDelay: 0)
        return ServerSentEvents(reconnection: reconnection, defaultQueue: .global()) { _ in
            let first = served.withLock { served -> Bool in
                defer { served = true }
                return !served
            }
            // An error that is not a dropped connection stops the source rather than reconnecting.
            return first
                ? .scripted([body], headers: ["Content-Type": "text/event-stream"], error: error)
                : .scripted([], statusCode: 204)
        }
    }
}

extension DecodedEvents {
    /// A sequence that delivers `values` once, then ends, or fails with `error`, without a
    /// network: for tests and `@Mock`.
    /// - Parameters:
    ///   - values: The values, delivered in order.
    ///   - error: Ends the sequence with this error after the values, instead of the end.
    public static func scripted(_ values: [Value], error: (any Error)? = nil) -> DecodedEvents<Value> {
        let events = values.indices.map { ServerSentEvent(data: String($0)) }
        return DecodedEvents(source: .scripted(events, error: error), sentinel: nil) { event in
            values[Int(event.data)!]
        }
    }
}
