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

    /// Decodes the event's `data` as JSON with `decoder` (for example the API's parser's).
    /// - Throws: The decoder's error.
    public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: JSONDecoder = JSONDecoder())
        throws -> T
    {
        try decoder.decode(T.self, from: Data(data.utf8))
    }
}
