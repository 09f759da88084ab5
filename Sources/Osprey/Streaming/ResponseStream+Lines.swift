import Foundation

extension ResponseStream {
    /// The body's text lines (ended by CRLF, LF or CR), decoded in the response's charset (UTF-8
    /// when it names none); the last line need not end with a line end.
    public var lines: Lines { Lines(stream: self) }

    /// The body read as a `text/event-stream`: its ``ServerSentEvent``s, without reconnecting
    /// (``AbstractAPI/events(route:parameters:reconnection:)`` reconnects). An event larger than
    /// 4 MiB (data and fields) stops the stream with ``APIError/parsingFailed(underlying:context:)``
    /// and a ``ServerSentEventTooLarge``.
    public var events: Events { Events(stream: self) }

    /// The text lines of a ``ResponseStream``.
    public struct Lines: AsyncSequence, Sendable {
        let stream: ResponseStream

        /// Reads the lines in order.
        public func makeAsyncIterator() -> Iterator {
            Iterator(reading: Reading(stream: stream))
        }

        /// Reads ``Lines``; dropping it before the end stops the transfer.
        public struct Iterator: AsyncIteratorProtocol {
            let reading: Reading
            var splitter: LineSplitter?
            var ready: [String] = []
            var readyIndex = 0
            var finished = false

            /// The next line, or nil at the end of the body.
            /// - Throws: What stopped the body.
            public mutating func next() async throws -> String? {
                if splitter == nil {
                    let contentType = try await reading.stream.buffer.head().headers["Content-Type"]
                    splitter = LineSplitter(encoding: LineSplitter.encoding(ofContentType: contentType))
                }
                while readyIndex == ready.count {
                    guard !finished else { return nil }
                    readyIndex = 0
                    if let piece = try await reading.next() {
                        ready = splitter!.feed(piece)
                    } else {
                        finished = true
                        ready = splitter!.finish().map { [$0] } ?? []
                    }
                }
                defer { readyIndex += 1 }
                return ready[readyIndex]
            }
        }
    }

    /// The server-sent events of a ``ResponseStream``.
    public struct Events: AsyncSequence, Sendable {
        let stream: ResponseStream
        /// The last event ID a previous connection left (a reconnection's), which events without
        /// `id:` carry.
        var lastEventID: String?

        /// Reads the events in order.
        public func makeAsyncIterator() -> Iterator {
            Iterator(
                reading: Reading(stream: stream), parser: ServerSentEventParser(lastEventID: lastEventID))
        }

        /// Reads ``Events``; dropping it before the end stops the transfer.
        public struct Iterator: AsyncIteratorProtocol {
            let reading: Reading
            var parser: ServerSentEventParser
            var ready: [ServerSentEvent] = []
            var readyIndex = 0

            /// The next event, or nil at the end of the body (an unfinished event is dropped).
            /// - Throws: What stopped the body, or ``APIError/parsingFailed(underlying:context:)``
            ///   with a ``ServerSentEventTooLarge`` once an event passed the limit (after the
            ///   events before it).
            public mutating func next() async throws -> ServerSentEvent? {
                while readyIndex == ready.count {
                    if parser.isOverLimit { throw try await tooLarge() }
                    guard let piece = try await reading.next() else { return nil }
                    ready = parser.feed(piece)
                    readyIndex = 0
                }
                defer { readyIndex += 1 }
                var event = ready[readyIndex]
                event.decoder = reading.stream.decoder
                return event
            }

            /// Stops the transfer (the server may go on sending) and says why.
            private func tooLarge() async throws -> APIError {
                // The head came before the body, so this does not wait.
                let head = try? await reading.stream.buffer.head()
                reading.stream.cancel()
                return APIError.parsingFailed(
                    underlying: ServerSentEventTooLarge(limit: ServerSentEventParser.maximumEventBytes),
                    context: .init(request: head?.request, response: head?.httpResponse))
            }

            /// The last event ID the stream set at its last dispatch, for a reconnection.
            var lastEventID: String? { parser.dispatchedLastEventID }
            /// The reconnection time the stream asked for, in milliseconds.
            var reconnectionTime: Int? { parser.reconnectionTime }
        }
    }
}
