import Foundation

extension ServerSentEvent {
    /// The event as a `text/event-stream` sends it: `id`, `event` (unless `message`), one `data`
    /// line per line of data, `retry`, and the blank line that dispatches it.
    public var wireFormat: String {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if event != "message" { text += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        if let retry { text += "retry: \(retry)\n" }
        return text + "\n"
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
