/// A media type for a multipart part, such as `.png` or `MimeType("application/vnd.api+json")`.
///
/// ``MimeType/inferred(fromPathExtension:)`` uses one built-in table, so a file gets the same
/// type on Linux and Apple platforms.
public struct MimeType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The media type text, such as `image/png`.
    public let rawValue: String

    /// A media type from its text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A media type from its text.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A media type from a literal.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// The media type text.
    public var description: String { rawValue }

    /// `image/png`
    public static let png = MimeType("image/png")
    /// `image/jpeg`
    public static let jpeg = MimeType("image/jpeg")
    /// `image/gif`
    public static let gif = MimeType("image/gif")
    /// `image/webp`
    public static let webp = MimeType("image/webp")
    /// `image/heic`
    public static let heic = MimeType("image/heic")
    /// `image/svg+xml`
    public static let svg = MimeType("image/svg+xml")
    /// `application/pdf`
    public static let pdf = MimeType("application/pdf")
    /// `application/json`
    public static let json = MimeType("application/json")
    /// `application/xml`
    public static let xml = MimeType("application/xml")
    /// `application/zip`
    public static let zip = MimeType("application/zip")
    /// `application/octet-stream`, for bytes of no particular type.
    public static let octetStream = MimeType("application/octet-stream")
    /// `text/plain; charset=utf-8`
    public static let plainText = MimeType("text/plain; charset=utf-8")
    /// `text/html; charset=utf-8`
    public static let html = MimeType("text/html; charset=utf-8")
    /// `text/csv; charset=utf-8`
    public static let csv = MimeType("text/csv; charset=utf-8")
    /// `video/mp4`
    public static let mp4 = MimeType("video/mp4")
    /// `video/quicktime`
    public static let quickTime = MimeType("video/quicktime")
    /// `audio/mpeg`
    public static let mp3 = MimeType("audio/mpeg")
    /// `audio/wav`
    public static let wav = MimeType("audio/wav")
    /// `audio/mp4`
    public static let m4a = MimeType("audio/mp4")

    /// The type for a file name extension (case-insensitive, without the dot), or
    /// `application/octet-stream` when the table does not know it.
    public static func inferred(fromPathExtension pathExtension: String) -> MimeType {
        table[pathExtension.lowercased()] ?? .octetStream
    }

    private static let table: [String: MimeType] = [
        "png": .png, "jpg": .jpeg, "jpeg": .jpeg, "gif": .gif, "webp": .webp, "heic": .heic, "svg": .svg,
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "ico": "image/vnd.microsoft.icon",
        "avif": "image/avif", "pdf": .pdf, "json": .json, "xml": .xml, "zip": .zip, "gz": "application/gzip",
        "tar": "application/x-tar", "txt": .plainText, "text": .plainText,
        "md": "text/markdown; charset=utf-8",
        "html": .html, "htm": .html, "csv": .csv, "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mp4": .mp4, "m4v": "video/x-m4v", "mov": .quickTime,
        "webm": "video/webm", "mp3": .mp3, "wav": .wav, "m4a": .m4a, "aac": "audio/aac", "ogg": "audio/ogg",
        "flac": "audio/flac", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "bin": .octetStream,
    ]
}
