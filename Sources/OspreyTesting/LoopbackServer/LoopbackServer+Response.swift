import Foundation

extension LoopbackServer {
    /// What a route answers: a status, headers, a body, and optionally a scripted misbehaviour.
    ///
    /// ```swift
    /// server.route("GET", "/slow") { _ in
    ///     .text("hello").delayingHead(by: 0.5).pausingBody(afterBytes: 2, for: 1)
    /// }
    /// ```
    public struct Response: Sendable {
        /// How the end of the body is signalled on the wire.
        public enum Framing: Sendable, Equatable {
            /// A `Content-Length` header (added unless the headers already carry one).
            case contentLength
            /// `Transfer-Encoding: chunked`, with chunks of at most `chunkSize` bytes.
            case chunked(chunkSize: Int)
            /// No length at all: the body ends when the server closes the connection.
            case closeDelimited
        }

        /// The status code.
        public var status: Int
        /// The reason phrase; nil picks the standard one for the status.
        public var reason: String?
        /// Header lines, sent in this order. Framing headers are added as needed.
        public var headers: [HeaderField]
        /// Header lines sent verbatim after `headers` (see `adding(rawHeaderLine:)`).
        public var rawHeaderLines: [String] = []
        /// The body payload.
        public var body: Data
        /// A large body sent as `count` copies of `chunk` without holding it whole (set by
        /// ``repeating(_:count:)``).
        public var repeatedBody: (chunk: Data, count: Int)?
        /// How the body is framed.
        public var framing: Framing = .contentLength
        /// The scripted misbehaviours, applied while sending.
        public var faults = Faults()
        /// Writes a streamed body (``streaming(status:headers:_:)``).
        var producer: (@Sendable (LoopbackServer.BodyWriter) -> Void)?
        /// After a `101`, the server's side of a WebSocket, run on the connection's thread.
        var webSocketSession: (@Sendable (WebSocketPeer) throws -> Void)?
        /// Whether that WebSocket agreed to permessage-deflate.
        var webSocketCompression = false
        /// Whether a streamed body ends by closing the connection, without its last chunk.
        var cutsStream = false

        /// Creates a response.
        public init(status: Int = 200, headers: [HeaderField] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A `text/plain; charset=utf-8` response.
        public static func text(_ text: String, status: Int = 200) -> Response {
            Response(
                status: status,
                headers: [HeaderField("Content-Type", "text/plain; charset=utf-8")],
                body: Data(text.utf8)
            )
        }

        /// An `application/json` response with the given bytes.
        public static func json(_ json: Data, status: Int = 200) -> Response {
            Response(status: status, headers: [HeaderField("Content-Type", "application/json")], body: json)
        }

        /// An `application/json` response with the given JSON text.
        public static func json(_ json: String, status: Int = 200) -> Response {
            .json(Data(json.utf8), status: status)
        }

        /// An `application/json` response encoding `value` with sorted keys.
        public static func json<Value: Encodable>(encoding value: Value, status: Int = 200) throws -> Response
        {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .json(try encoder.encode(value), status: status)
        }

        /// A redirect (any 3xx) to `location`, sent verbatim: absolute, absolute-path or relative.
        public static func redirect(_ status: Int = 302, to location: String) -> Response {
            Response(status: status, headers: [HeaderField("Location", location)])
        }

        /// A 401 carrying a `WWW-Authenticate: Basic` challenge.
        public static func basicChallenge(realm: String = "loopback", body: String = "unauthorized")
            -> Response
        {
            Response(
                status: 401,
                headers: [
                    HeaderField("WWW-Authenticate", "Basic realm=\"\(realm)\""),
                    HeaderField("Content-Type", "text/plain; charset=utf-8"),
                ],
                body: Data(body.utf8)
            )
        }

        /// The same response sent with `Transfer-Encoding: chunked`.
        public func chunked(chunkSize: Int = 16 * 1024) -> Response {
            var copy = self
            copy.framing = .chunked(chunkSize: max(1, chunkSize))
            return copy
        }

        /// The same response with no length: the body ends when the connection closes.
        public func closeDelimited() -> Response {
            var copy = self
            copy.framing = .closeDelimited
            return copy
        }

        /// A `200` whose body is `count` copies of `chunk`, with a `Content-Length`, sent without
        /// ever being whole in memory: for gigabyte downloads in benchmarks and memory tests.
        public static func repeating(_ chunk: Data, count: Int) -> Response {
            var response = Response(headers: [HeaderField("Content-Length", String(chunk.count * count))])
            response.repeatedBody = (chunk, count)
            return response
        }

        /// The same response with one more header line.
        public func adding(header name: String, _ value: String) -> Response {
            var copy = self
            copy.headers.append(HeaderField(name, value))
            return copy
        }

        /// The same response with one more header line sent exactly as given, after the others:
        /// for lines a well-behaved server would not write, such as `Name:value` without a space.
        ///
        /// - Parameter line: The line without its CRLF; it must not contain CR or LF itself.
        public func adding(rawHeaderLine line: String) -> Response {
            precondition(!line.utf8.contains(0x0D) && !line.utf8.contains(0x0A), "one line, without CR or LF")
            var copy = self
            copy.rawHeaderLines.append(line)
            return copy
        }
    }
}

extension LoopbackServer.Response {
    /// The standard reason phrase for common status codes.
    static func standardReason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 418: "I'm a teapot"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
