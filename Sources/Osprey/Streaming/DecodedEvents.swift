import Foundation

/// The events of a ``ServerSentEvents`` source with each event's `data` decoded as JSON by the
/// API's parser (or a decoder of your own): model APIs that send one JSON object per event.
///
/// ```swift
/// let answer = api.events(route: api.post(endpoint: "/chat"), parameters: JSONParameters(prompt))
/// for try await token in answer.values(of: Token.self, endingAt: "[DONE]") {
///     print(token.text, terminator: "")
/// }
/// ```
public struct DecodedEvents<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A decoded event.
    public typealias Element = Value

    let source: ServerSentEvents
    /// The `data` that ends the sequence instead of being decoded (`[DONE]`), if any.
    let sentinel: String?
    let decode: @Sendable (ServerSentEvent) throws -> Value

    /// Reads and decodes the events in order.
    public func makeAsyncIterator() -> Iterator {
        Iterator(events: source.makeAsyncIterator(), sentinel: sentinel, decode: decode)
    }

    /// Stops the source.
    public func cancel() {
        source.cancel()
    }

    /// Reads ``DecodedEvents``.
    public struct Iterator: AsyncIteratorProtocol {
        var events: ServerSentEvents.Iterator
        let sentinel: String?
        let decode: @Sendable (ServerSentEvent) throws -> Value
        var ended = false

        /// The next event's value; nil when the source stopped, or at the sentinel.
        /// - Throws: Why the source stopped, or ``APIError/parsingFailed(underlying:context:)``
        ///   (naming the request) when an event's data is not a `Value` (which stops reading).
        public mutating func next() async throws -> Value? {
            guard !ended, let event = try await events.next() else { return nil }
            if let sentinel, event.data.trimmingCharacters(in: .whitespaces) == sentinel {
                // The answer is complete: the connection goes, whatever the server meant to
                // send after it, and nothing reconnects. This needs no help from the loop that
                // reads (in top-level code, Swift never releases a `for` loop's iterator).
                ended = true
                events.source.cancel()
                return nil
            }
            do {
                return try decode(event)
            } catch {
                events.source.cancel()
                let head = events.source.currentHead
                throw APIError.parsingFailed(
                    underlying: error,
                    context: .init(
                        request: head?.request, response: head?.httpResponse, data: Data(event.data.utf8)))
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
        DecodedEvents(source: self, sentinel: nil, decode: decoding(Value.self, with: decoder))
    }

    /// The events with each `data` decoded as JSON, up to the event whose `data` is `sentinel`:
    /// the `data: [DONE]` that model APIs send after the last token. The sequence ends there
    /// (the sentinel is not decoded) and the connection is closed.
    ///
    /// ```swift
    /// for try await token in answer.values(of: Token.self, endingAt: "[DONE]") {
    ///     print(token.text, terminator: "")
    /// }
    /// ```
    /// - Parameters:
    ///   - type: What each event's data is.
    ///   - sentinel: The `data` that ends the sequence (compared without surrounding spaces).
    ///   - decoder: A decoder of your own; nil for the API's parser.
    public func values<Value: Decodable & Sendable>(
        of type: Value.Type = Value.self, endingAt sentinel: String, decoder: JSONDecoder? = nil
    )
        -> DecodedEvents<Value>
    {
        DecodedEvents(source: self, sentinel: sentinel, decode: decoding(Value.self, with: decoder))
    }

    private func decoding<Value: Decodable & Sendable>(_: Value.Type, with decoder: JSONDecoder?)
        -> @Sendable (ServerSentEvent) throws -> Value
    {
        let api = self.api
        return { event in
            let data = Data(event.data.utf8)
            if let parser = api?.responseParser, decoder == nil {
                return try parser.getInstance(from: data, response: nil)
            }
            return try (decoder ?? JSONDecoder()).decode(Value.self, from: data)
        }
    }
}
