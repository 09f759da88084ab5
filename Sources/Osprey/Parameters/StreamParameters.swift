import Foundation

/// A request whose body is a ``BodyStream``: produced as it is sent, never whole in memory.
///
/// ```swift
/// let parameters = StreamParameters(BodyStream(length: size) { file.chunks() }, contentType: "video/mp4")
/// api.request(route: api.put(endpoint: "/uploads/\(id)"), parameters: parameters)
/// ```
open class StreamParameters: BaseParameters, @unchecked Sendable {
    // @unchecked: immutable after init; the inherited headers are locked by the base class.

    /// The body.
    public let body: BodyStream
    /// Its media type.
    public let contentType: String

    /// Parameters with a streamed body.
    /// - Parameters:
    ///   - body: The body.
    ///   - contentType: Its media type.
    ///   - headers: More headers.
    ///   - timeout: Seconds without progress before the request fails; the API's when nil.
    public init(
        _ body: BodyStream, contentType: String = "application/octet-stream", headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil
    ) {
        self.body = body
        self.contentType = contentType
        super.init(headers: headers, timeout: timeout)
    }

    /// Sets the streamed body.
    open override func encode(into draft: inout RequestDraft) throws {
        draft.setBody(stream: body, contentType: contentType)
    }
}
