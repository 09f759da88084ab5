import Foundation

/// An HTTP Archive (HAR 1.2): the format browsers, debugging proxies (Charles, Proxyman,
/// mitmproxy) and record-and-replay tools exchange traffic in.
///
/// ``HARRecorder`` writes one from what an API did, and OspreyTesting's `Cassette` records and
/// replays one in tests. Field names and meanings follow the HAR 1.2 specification; fields
/// Osprey adds start with an underscore, as the specification asks (``Content/chunks``).
///
/// ```swift
/// let archive = try HAR(data: Data(contentsOf: file))
/// for entry in archive.log.entries { print(entry.request.method, entry.request.url) }
/// ```
public struct HAR: Codable, Sendable, Equatable {
    /// The archive's one log.
    public var log: Log

    /// An archive holding `entries`, made by Osprey.
    public init(entries: [Entry] = []) {
        log = Log(entries: entries)
    }

    /// Reads an archive from its JSON.
    /// - Throws: A `DecodingError` that names the field, when the JSON is not a HAR.
    public init(data: Data) throws {
        self = try JSONDecoder().decode(HAR.self, from: data)
    }

    /// The archive as pretty-printed JSON with sorted keys, so that two recordings of the
    /// same traffic differ only where the traffic did.
    public func encoded() throws -> Data {
        try Self.encoder().encode(self)
    }

    /// The encoder of ``encoded()``, for writers that encode an archive part by part.
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The root of an archive.
    public struct Log: Codable, Sendable, Equatable {
        /// The format's version: `1.2`.
        public var version: String
        /// The program that wrote the archive.
        public var creator: Creator
        /// The exchanges, oldest first.
        public var entries: [Entry]
        /// A note.
        public var comment: String?

        /// A log of `entries` written by Osprey.
        public init(entries: [Entry], creator: Creator = .osprey) {
            version = "1.2"
            self.creator = creator
            self.entries = entries
        }
    }

    /// The program that wrote an archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String

        /// A creator.
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }

        /// Osprey, at the version of the CHANGELOG's latest release (a test keeps the two equal).
        public static let osprey = Creator(name: "Osprey", version: "1.0.1")
    }

    /// A name and a value: a header, a query item.
    public struct Field: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A cookie sent or set.
    public struct Cookie: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its value.
        public var value: String
        /// The path it applies to.
        public var path: String?
        /// The domain it applies to.
        public var domain: String?
        /// When it expires, in ISO 8601.
        public var expires: String?
        /// Whether scripts cannot read it.
        public var httpOnly: Bool?
        /// Whether it goes only over secure connections.
        public var secure: Bool?

        /// A cookie.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One exchange: a request and its response.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request started, in ISO 8601 with milliseconds.
        public var startedDateTime: String
        /// Milliseconds from the start to the end of the response: the sum of ``timings``.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response.
        public var response: Response
        /// What the browser's cache did: empty, as the format allows.
        public var cache: Cache
        /// Where the time went.
        public var timings: Timings
        /// The server's address, when known.
        public var serverIPAddress: String?
        /// A note.
        public var comment: String?

        /// An entry.
        public init(
            startedDateTime: String, time: Double, request: Request, response: Response,
            timings: Timings
        ) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            cache = Cache()
            self.timings = timings
        }
    }

    /// The cache's part of an entry; Osprey writes it empty.
    public struct Cache: Codable, Sendable, Equatable {
        /// An empty cache record.
        public init() {}
    }

    /// A request.
    public struct Request: Codable, Sendable, Equatable {
        /// The method.
        public var method: String
        /// The absolute URL, fragment removed.
        public var url: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies sent.
        public var cookies: [Cookie]
        /// The header fields, in order.
        public var headers: [Field]
        /// The query items, decoded.
        public var queryString: [Field]
        /// The body, when there was one.
        public var postData: PostData?
        /// The head's size in bytes, -1 when unknown.
        public var headersSize: Int
        /// The body's size in bytes, -1 when unknown.
        public var bodySize: Int
        /// A note.
        public var comment: String?

        /// A request.
        public init(
            method: String, url: String, httpVersion: String = "HTTP/1.1", headers: [Field] = [],
            queryString: [Field] = [], postData: PostData? = nil, bodySize: Int = -1
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            cookies = []
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            headersSize = -1
            self.bodySize = bodySize
        }
    }

    /// A request's body.
    public struct PostData: Codable, Sendable, Equatable {
        /// Its media type.
        public var mimeType: String
        /// Its form fields, for form bodies.
        public var params: [Param]?
        /// Its text: the body itself for text, base64 for binary (see ``encoding``).
        public var text: String?
        /// `base64` when ``text`` holds a binary body in base64 (an Osprey extension, as in
        /// response content).
        public var encoding: String?
        /// A note.
        public var comment: String?

        /// A request body.
        public init(mimeType: String, text: String?, encoding: String? = nil, params: [Param]? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.params = params
        }

        private enum CodingKeys: String, CodingKey {
            case mimeType, params, text, comment
            case encoding = "_encoding"
        }
    }

    /// A field of a posted form.
    public struct Param: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its value.
        public var value: String?
        /// The file name of an uploaded file.
        public var fileName: String?
        /// The media type of an uploaded file.
        public var contentType: String?

        /// A form field.
        public init(name: String, value: String?, fileName: String? = nil, contentType: String? = nil) {
            self.name = name
            self.value = value
            self.fileName = fileName
            self.contentType = contentType
        }
    }
}
