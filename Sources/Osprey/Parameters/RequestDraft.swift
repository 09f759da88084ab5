import Foundation

/// A request while it is being built: what ``RequestParameters`` write into.
///
/// A custom parameters type appends query parameters, sets a body or adds headers here:
///
/// ```swift
/// struct CSVParameters: RequestParameters {
///     var headers: HTTPHeaders = [:]
///     var rows: [[String]]
///     func encode(into draft: inout RequestDraft) throws {
///         let csv = rows.map { $0.joined(separator: ",") }.joined(separator: "\n")
///         draft.setBody(Data(csv.utf8), contentType: "text/csv")
///     }
/// }
/// ```
public struct RequestDraft: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The full URL text, query included.
    public var url: String
    /// The headers so far (the API's defaults, then the parameters' own).
    public var headers: HTTPHeaders
    /// The body, if any, in memory.
    public var body: Data?
    /// A body to upload from a file instead, streamed from disk (set by ``setBody(fileAt:contentType:isTemporary:)``).
    public private(set) var bodyFile: BodyFile?
    /// A body produced as it is sent (set by ``setBody(stream:contentType:)``).
    public private(set) var bodyStream: BodyStream?

    /// A body streamed from a file.
    public struct BodyFile: Sendable, Equatable {
        /// The file.
        public var url: URL
        /// Whether Osprey made the file and deletes it once the request is over.
        public var isTemporary: Bool
    }
    /// Seconds of inactivity before the request fails, when the parameters ask for a limit.
    public var timeout: TimeInterval?
    /// How query and form parameters are written.
    public var encoding: ParameterEncoding

    /// Creates a draft.
    public init(
        method: HTTPMethod,
        url: String,
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: TimeInterval? = nil,
        encoding: ParameterEncoding = ParameterEncoding()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.encoding = encoding
    }

    /// Appends parameters to the query, after any query the URL already has (and before a
    /// fragment).
    /// - Throws: ``APIError/encodingFailed(reason:underlying:)`` for a value with no encoding.
    public mutating func appendQuery(_ parameters: [String: any Sendable], encoding: ParameterEncoding? = nil)
        throws
    {
        appendQuery(encoded: try FormEncoder(encoding: encoding ?? self.encoding).encode(parameters))
    }

    /// Appends an already percent-encoded query (`a=1&b=2`).
    public mutating func appendQuery(encoded query: String) {
        guard !query.isEmpty else { return }
        let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
        let beforeFragment = url[..<fragmentStart]
        let separator =
            !beforeFragment.contains("?")
            ? "?" : (beforeFragment.hasSuffix("?") || beforeFragment.hasSuffix("&") ? "" : "&")
        url = beforeFragment + separator + query + url[fragmentStart...]
    }

    /// Sets the body and, unless one is already set, its `Content-Type`.
    public mutating func setBody(_ data: Data, contentType: String) {
        body = data
        bodyFile = nil
        bodyStream = nil
        if !headers.contains("Content-Type") { headers["Content-Type"] = contentType }
    }

    /// Uploads the body from a file, streamed from disk, and sets its `Content-Type` unless one
    /// is already set. A temporary file is deleted once the request is over, whatever its outcome.
    public mutating func setBody(fileAt url: URL, contentType: String, isTemporary: Bool = false) {
        body = nil
        bodyFile = BodyFile(url: url, isTemporary: isTemporary)
        bodyStream = nil
        if !headers.contains("Content-Type") { headers["Content-Type"] = contentType }
    }

    /// Sends a body produced as it is sent, and sets its `Content-Type` unless one is already set.
    public mutating func setBody(stream: BodyStream, contentType: String) {
        body = nil
        bodyFile = nil
        bodyStream = stream
        if !headers.contains("Content-Type") { headers["Content-Type"] = contentType }
    }

    /// Whether there is a body, in memory, in a file or from a stream.
    var hasBody: Bool { body != nil || bodyFile != nil || bodyStream != nil }
}
