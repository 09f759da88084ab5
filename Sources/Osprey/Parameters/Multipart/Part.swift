import Foundation

/// One part of a `multipart/form-data` body (RFC 7578): a text field or bytes with a file name.
///
/// ```swift
/// let picture = Part(mimeType: .png, data: data, attributes: ["name": "picture", "filename": "a.png"])
/// let caption = Part(name: "caption", value: "At the lake")
/// let video = Part(name: "video", fileURL: movieURL)   // streamed from disk
/// ```
public struct Part: Sendable, Equatable {
    /// The form field name.
    public var name: String
    /// The file name, for file parts.
    public var filename: String?
    /// The part's `Content-Type`; none for a plain text field.
    public var mimeType: MimeType?
    /// The content, for parts held in memory.
    public var data: Data
    /// The file the content is read from while uploading, for parts streamed from disk.
    public var fileURL: URL?

    /// A part with bytes.
    public init(name: String, data: Data, filename: String? = nil, mimeType: MimeType? = nil) {
        self.name = name
        self.data = data
        self.filename = filename
        self.mimeType = mimeType
    }

    /// A part streamed from a file: the file name and MIME type come from the URL unless given.
    /// A missing, unreadable or directory file fails the request before anything is sent.
    public init(name: String, fileURL: URL, filename: String? = nil, mimeType: MimeType? = nil) {
        self.init(
            name: name,
            data: Data(),
            filename: filename ?? fileURL.lastPathComponent,
            mimeType: mimeType ?? .inferred(fromPathExtension: fileURL.pathExtension)
        )
        self.fileURL = fileURL
    }

    /// A text field.
    public init(name: String, value: String) {
        self.init(name: name, data: Data(value.utf8))
    }

    /// A part in the original Osprey's form: `attributes["name"]` is the field name (an empty
    /// name when missing) and `attributes["filename"]`, if any, the file name.
    public init(mimeType: MimeType, data: Data, attributes: [String: String]) {
        self.init(
            name: attributes["name"] ?? "", data: data, filename: attributes["filename"], mimeType: mimeType)
    }
}
