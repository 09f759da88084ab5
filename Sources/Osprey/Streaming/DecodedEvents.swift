import Foundation

/// The events of a ``ServerSentEvents`` source with each event's `data` decoded as JSON by the
/// API's parser (or a decoder of your own): model APIs that send one JSON object per event.
///
/// ```swift
/// for try await token in api.events(route: api.post(endpoint: "/chat")).values(of: Token.self) {
///     print(token.text, terminator: "")
/// }
/// ```
public struct DecodedEvents<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A decoded event.
    public typealias Element = Value

    let source: ServerSentEvents
    let decode: @Sendable (ServerSentEvent) throws -> Value

    /// Reads and decodes the events in order.
    public func makeAsyncIterator() -> Iterator {
        Iterator(events: source.makeAsyncIterator(), decode: decode)
    }

    /// Stops the source.
    public func cancel() {
        source.cancel()
    }

    /// Reads ``DecodedEvents``.
    public struct Iterator: AsyncIteratorProtocol {
        var events: ServerSentEvents.Iterator
        let decode: @Sendable (ServerSentEvent) throws -> Value

        /// The next event's value; nil when the source stopped.
        /// - Throws: Why the source stopped, or ``APIError/parsingFailed(underlying:context:)``
        ///   when an event's data is not a `Value` (which stops reading).
        public mutating func next() async throws -> Value? {
            guard let event = try await events.next() else { return nil }
            do {
                return try decode(event)
            } catch {
                events.source.cancel()
                throw APIError.parsingFailed(
                    underlying: error, context: .init(request: nil, data: Data(event.data.utf8)))
            }
        }
    }
}

extension ServerSentEvents {
    /// The events with each `data` decoded as JSON: by the API's parser (its `getInstance`, so an
    /// envelope it unwraps is unwrapped here too), unless `decoder` is given.
    /// - Parameters:
    ///   - type: What each event's data is.
    ///   - decoder: A decoder of your own; nil for the API's parser.
    public func values<Value: Decodable & Sendable>(
        of type: Value.Type = Value.self, decoder: JSONDecoder? = nil
    )
        -> DecodedEvents<Value>
    {
        let api = self.api
        return DecodedEvents(source: self) { event in
            let data = Data(event.data.utf8)
            if let parser = api?.responseParser, decoder == nil {
                return try parser.getInstance(from: data, response: nil)
            }
            return try (decoder ?? JSONDecoder()).decode(Value.self, from: data)
        }
    }
}
