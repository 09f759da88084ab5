import Foundation

extension LoopbackServer {
    /// Writes a streamed body piece by piece, from the connection's thread: see
    /// ``LoopbackServer/Response/streaming(status:headers:_:)``.
    public final class BodyWriter: Sendable {
        private let send: @Sendable (Data) -> Bool
        private let wait: @Sendable (TimeInterval) -> Bool

        init(send: @escaping @Sendable (Data) -> Bool, wait: @escaping @Sendable (TimeInterval) -> Bool) {
            self.send = send
            self.wait = wait
        }

        /// Sends `data` as one chunk now; false once the client has gone (stop writing then).
        @discardableResult
        public func write(_ data: Data) -> Bool {
            data.isEmpty ? true : send(data)
        }

        /// Sends `text` as UTF-8, as one chunk.
        @discardableResult
        public func write(_ text: String) -> Bool {
            write(Data(text.utf8))
        }

        /// Waits `seconds` unless the client hangs up or the server stops; false if either did.
        @discardableResult
        public func pause(for seconds: TimeInterval) -> Bool {
            wait(seconds)
        }
    }
}

extension LoopbackServer.Response {
    /// A response whose body `produce` writes as it likes, with chunked framing: pieces at any
    /// time, waits, or a wait for the test to allow the next piece. The body ends when `produce`
    /// returns (unless it asked to end the connection abruptly with ``closingAfterStream()``).
    ///
    /// ```swift
    /// server.route("/events") { _ in
    ///     .streaming(headers: [.init("Content-Type", "text/event-stream")]) { body in
    ///         body.write("data: one\n\n")
    ///         body.pause(for: 0.1)
    ///         body.write("data: two\n\n")
    ///     }
    /// }
    /// ```
    public static func streaming(
        status: Int = 200, headers: [LoopbackServer.HeaderField] = [],
        _ produce: @escaping @Sendable (LoopbackServer.BodyWriter) -> Void
    ) -> Self {
        var response = Self(status: status, headers: headers)
        response.framing = .chunked(chunkSize: 1 << 20)
        response.producer = produce
        return response
    }

    /// The same streamed response, but the connection is closed when the producer returns,
    /// without the last chunk: the body is cut short (a dropped connection).
    public func closingAfterStream() -> Self {
        var copy = self
        copy.cutsStream = true
        return copy
    }
}
