import Foundation

/// One event of a `text/event-stream` body, as the WHATWG HTML standard's "Server-sent events"
/// section dispatches it.
///
/// ```swift
/// for try await event in api.events(route: .get("https://api.example.com/feed")) {
///     print(event.event, event.data)
/// }
/// ```
public struct ServerSentEvent: Sendable, Equatable, CustomStringConvertible {
    /// The last event ID the stream set (`id:`), which a reconnection sends as `Last-Event-ID`;
    /// nil when none was set yet.
    public var id: String?
    /// The event type (`event:`), `message` when the event named none.
    public var event: String
    /// The `data:` lines, joined with `\n`.
    public var data: String
    /// The reconnection delay in milliseconds the event's block set (`retry:`), if any.
    public var retry: Int?
    /// The decoder of the API that read the event (its ``JSONParser``'s), for ``decode(_:)``;
    /// not part of the event's value.
    var decoder: JSONDecoder?

    /// An event.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// `event: data` (with the id when there is one).
    public var description: String {
        (id.map { "[\($0)] " } ?? "") + "\(event): \(data)"
    }

    /// Two events are equal when their fields are (the decoder they came with aside).
    public static func == (lhs: ServerSentEvent, rhs: ServerSentEvent) -> Bool {
        lhs.id == rhs.id && lhs.event == rhs.event && lhs.data == rhs.data && lhs.retry == rhs.retry
    }

    /// Decodes the event's `data` as JSON with the decoder of the API that read it: its
    /// ``JSONParser``'s, so that `JSONParser(keyMapping: .snakeCase)` reads `finish_reason` into
    /// `finishReason` here as in its responses. An event made by hand, or read by an API whose
    /// parser is not a ``JSONParser``, is decoded by a plain `JSONDecoder`.
    /// - Throws: The decoder's error.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try (decoder ?? JSONDecoder()).decode(T.self, from: Data(data.utf8))
    }

    /// Decodes the event's `data` as JSON with `decoder`.
    /// - Throws: The decoder's error.
    public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: JSONDecoder = JSONDecoder())
        throws -> T
    {
        try decoder.decode(T.self, from: Data(data.utf8))
    }
}
