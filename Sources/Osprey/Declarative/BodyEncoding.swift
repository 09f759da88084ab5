import Foundation

/// How a ``RequestBuilder`` writes its fields or body: JSON (the default), a URL-encoded form,
/// or multipart.
public struct BodyEncoding: Sendable {
    enum Kind: Sendable {
        case json(JSONEncoder?)
        case urlForm(ParameterEncoding?)
        case multipart(boundary: String?)
    }

    let kind: Kind

    /// `application/json`, with dates as ISO 8601 and the builder's key mapping.
    public static let json = BodyEncoding(kind: .json(nil))

    /// `application/json` written by `encoder` (the builder's key mapping still names the fields).
    public static func json(encoder: JSONEncoder) -> BodyEncoding {
        BodyEncoding(kind: .json(encoder))
    }

    /// `application/x-www-form-urlencoded`, written like the API's query parameters.
    public static let urlForm = BodyEncoding(kind: .urlForm(nil))

    /// `application/x-www-form-urlencoded` with its own array, boolean and date styles.
    public static func urlForm(encoding: ParameterEncoding) -> BodyEncoding {
        BodyEncoding(kind: .urlForm(encoding))
    }

    /// `multipart/form-data` from ``Part``s, with a random boundary.
    public static let multipart = BodyEncoding(kind: .multipart(boundary: nil))

    /// `multipart/form-data` with a fixed boundary (for byte-exact tests; empty for a random one).
    public static func multipart(boundary: String) -> BodyEncoding {
        BodyEncoding(kind: .multipart(boundary: boundary.isEmpty ? nil : boundary))
    }
}
