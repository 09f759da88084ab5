import Foundation

extension HAR {
    /// A response.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code.
        public var status: Int
        /// The reason phrase, or the standard one for the status.
        public var statusText: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies set.
        public var cookies: [Cookie]
        /// The header fields, in order.
        public var headers: [Field]
        /// The body.
        public var content: Content
        /// The `Location` of a redirect, else empty.
        public var redirectURL: String
        /// The head's size in bytes, -1 when unknown.
        public var headersSize: Int
        /// The body's size as received in bytes, -1 when unknown.
        public var bodySize: Int
        /// The URL that answered, when redirects the transport followed led away from the
        /// request's URL (an Osprey extension, `_url`).
        public var url: String?
        /// A note.
        public var comment: String?

        private enum CodingKeys: String, CodingKey {
            case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize,
                bodySize
            case comment
            case url = "_url"
        }

        /// A response.
        public init(
            status: Int, statusText: String? = nil, httpVersion: String = "HTTP/1.1", headers: [Field] = [],
            content: Content, redirectURL: String = "", bodySize: Int = -1
        ) {
            self.status = status
            self.statusText = statusText ?? HTTPURLResponse.localizedString(forStatusCode: status)
            self.httpVersion = httpVersion
            cookies = []
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            headersSize = -1
            self.bodySize = bodySize
        }
    }

    /// A response's body, decoded (no content coding).
    public struct Content: Codable, Sendable, Equatable {
        /// Its length in bytes.
        public var size: Int
        /// Bytes saved by the content coding, when known.
        public var compression: Int?
        /// Its media type.
        public var mimeType: String
        /// The body: as text when it is text, else in base64 (see ``encoding``); nil when the
        /// body was not kept.
        public var text: String?
        /// `base64` when ``text`` holds the body in base64.
        public var encoding: String?
        /// The sizes of the pieces the body arrived in, when it was streamed: a replay hands it
        /// over in the same pieces. An Osprey extension (`_chunks`).
        public var chunks: [Int]?
        /// When each of ``chunks`` arrived, in milliseconds after the request started: a replay
        /// that keeps the recorded timing hands each piece over at its time. An Osprey extension
        /// (`_chunkTimes`).
        public var chunkTimes: [Double]?
        /// A note.
        public var comment: String?

        /// Content of `size` bytes of `mimeType`.
        public init(
            size: Int, mimeType: String, text: String? = nil, encoding: String? = nil, chunks: [Int]? = nil,
            chunkTimes: [Double]? = nil
        ) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.chunks = chunks
            self.chunkTimes = chunkTimes
        }

        /// The body's bytes, when it was kept; nil when it was not, or its base64 is damaged.
        public var data: Data? {
            guard let text else { return nil }
            return encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
        }

        private enum CodingKeys: String, CodingKey {
            case size, compression, mimeType, text, encoding, comment
            case chunks = "_chunks"
            case chunkTimes = "_chunkTimes"
        }
    }

    /// Where an exchange's time went, in milliseconds; -1 for a phase that did not happen.
    public struct Timings: Codable, Sendable, Equatable {
        /// Waiting for a connection.
        public var blocked: Double?
        /// Resolving the host's name.
        public var dns: Double?
        /// Opening the connection, TLS included.
        public var connect: Double?
        /// Sending the request.
        public var send: Double
        /// Waiting for the first byte of the response.
        public var wait: Double
        /// Receiving the response.
        public var receive: Double
        /// The TLS handshake (also counted in ``connect``).
        public var ssl: Double?
        /// A note.
        public var comment: String?

        /// Timings.
        public init(
            blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double,
            receive: Double, ssl: Double? = -1
        ) {
            self.blocked = blocked
            self.dns = dns
            self.connect = connect
            self.send = send
            self.wait = wait
            self.receive = receive
            self.ssl = ssl
        }
    }
}
