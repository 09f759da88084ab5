import Foundation
import Osprey

extension MockTransport {
    /// What a mocked route answers: a response (built like the loopback server's), or a fault.
    ///
    /// ```swift
    /// mock.route("GET", "/users/:name") { request in .json(#"{"name": "\#(request.pathParameters["name"]!)"}"#) }
    /// mock.route("GET", "/offline") { _ in .failure(URLError(.notConnectedToInternet)) }
    /// mock.route("GET", "/slow") { _ in Reply.text("late").delayed(by: 2) }
    /// mock.route("GET", "/hang") { _ in .never }
    /// ```
    public struct Reply: Sendable {
        enum Kind: Sendable {
            case response(LoopbackServer.Response)
            /// A head, then its body piece by piece, `interval` seconds apart.
            case pieces(LoopbackServer.Response, [Data], interval: TimeInterval)
            case failure(any Error)
            case never
        }

        let kind: Kind
        /// Seconds before the reply arrives.
        public private(set) var delay: TimeInterval = 0

        /// A response, as the loopback server would send it (faults other than its head delay
        /// do not apply to the mock).
        public static func response(_ response: LoopbackServer.Response) -> Reply {
            Reply(kind: .response(response))
        }

        /// A JSON body.
        public static func json(_ json: String, status: Int = 200) -> Reply {
            .response(.json(json, status: status))
        }

        /// A JSON body.
        public static func json(_ json: Data, status: Int = 200) -> Reply {
            .response(.json(json, status: status))
        }

        /// A value encoded as JSON.
        public static func json<Value: Encodable>(encoding value: Value, status: Int = 200) throws -> Reply {
            .response(try .json(encoding: value, status: status))
        }

        /// A `text/plain` body.
        public static func text(_ text: String, status: Int = 200) -> Reply {
            .response(.text(text, status: status))
        }

        /// A status with no body, such as `204`.
        public static func status(_ status: Int) -> Reply {
            .response(LoopbackServer.Response(status: status))
        }

        /// A transport failure: the request fails as Osprey's
        /// `APIError.transport(underlying:context:)` with `error`, as if the network did, such as
        /// `URLError(.notConnectedToInternet)`.
        public static func failure(_ error: any Error) -> Reply {
            Reply(kind: .failure(error))
        }

        /// A `200` whose body comes in `pieces`, `interval` seconds apart: a stream
        /// (`api.stream(...)`) gets each piece as it comes; a plain request gets them joined.
        public static func pieces(
            _ pieces: [Data], every interval: TimeInterval = 0,
            contentType: String = "application/octet-stream"
        ) -> Reply {
            Reply(
                kind: .pieces(
                    LoopbackServer.Response(headers: [.init("Content-Type", contentType)]), pieces,
                    interval: Swift.max(0, interval)))
        }

        /// A `text/event-stream` answer sending `events` one at a time, `interval` seconds apart.
        public static func events(_ events: [ServerSentEvent], every interval: TimeInterval = 0) -> Reply {
            .pieces(
                events.map { Data($0.wireFormat.utf8) }, every: interval, contentType: "text/event-stream")
        }

        /// No answer ever: the request ends only by cancellation, its idle timeout or its deadline.
        public static let never = Reply(kind: .never)

        /// The same reply after `seconds` (the request's idle timeout applies while it waits).
        public func delayed(by seconds: TimeInterval) -> Reply {
            var copy = self
            copy.delay = max(0, seconds)
            return copy
        }

        /// The same response with one more header (no effect on a fault).
        public func adding(header name: String, _ value: String) -> Reply {
            guard case .response(let response) = kind else { return self }
            var copy = self
            copy = Reply(kind: .response(response.adding(header: name, value)), delay: delay)
            return copy
        }
    }
}
