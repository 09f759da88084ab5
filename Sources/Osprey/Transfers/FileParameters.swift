import Foundation

/// A file sent as the whole request body, streamed from disk: the presigned-URL `PUT` of
/// storage services, or any raw upload.
///
/// ```swift
/// api.request(route: .put(presignedURL), parameters: FileParameters(fileURL: video, contentType: "video/mp4"))
///     .onProgress { print($0.completedBytes) }
/// ```
///
/// The file is checked before anything is sent (it must exist, be readable and be a regular
/// file), is read again for a retry or a `307`/`308` redirect, and reports upload progress.
open class FileParameters: BaseParameters, @unchecked Sendable {
    // @unchecked: immutable after init; the inherited headers are locked by the base class.

    /// The file to send.
    public let fileURL: URL
    /// Its `Content-Type`.
    public let contentType: String

    /// A file body.
    /// - Parameters:
    ///   - fileURL: The file.
    ///   - contentType: Its media type; inferred from the extension when nil
    ///     (`application/octet-stream` when unknown).
    ///   - headers: More headers.
    ///   - timeout: Seconds without progress before the request fails; the API's when nil.
    public init(
        fileURL: URL, contentType: String? = nil, headers: HTTPHeaders = [:], timeout: TimeInterval? = nil
    ) {
        self.fileURL = fileURL
        self.contentType = contentType ?? MimeType.inferred(fromPathExtension: fileURL.pathExtension).rawValue
        super.init(headers: headers, timeout: timeout)
    }

    /// Checks the file and makes it the body.
    open override func encode(into draft: inout RequestDraft) throws {
        guard !draft.method.forbidsBody else {
            throw APIError.invalidRequest(reason: "a \(draft.method) request cannot have a file body")
        }
        _ = try MultipartFileWriter.validatedSize(of: fileURL, role: "body file")
        draft.setBody(fileAt: fileURL, contentType: contentType, isTemporary: false)
    }
}
