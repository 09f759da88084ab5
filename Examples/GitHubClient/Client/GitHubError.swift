import Foundation

/// The body GitHub sends with a failed request, decoded by ``GitHubParser`` into the
/// `serverError` of `APIError.unacceptableStatus`:
///
/// ```json
/// {"message": "Validation Failed",
///  "errors": [{"resource": "Repository", "field": "name", "code": "custom", "message": "name already exists on this account"}],
///  "documentation_url": "https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user"}
/// ```
public struct GitHubError: Decodable, Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, such as `Not Found` or `Bad credentials`.
    public var message: String
    /// The documentation of the endpoint that failed.
    public var documentationURL: URL?
    /// For `422 Validation Failed`: which fields were refused, and why.
    public var errors: [FieldError]?

    /// One refused field of a `422 Validation Failed`.
    public struct FieldError: Decodable, Sendable, Equatable {
        /// The kind of resource, such as `Repository`.
        public var resource: String?
        /// The field, such as `name`.
        public var field: String?
        /// GitHub's code: `missing`, `missing_field`, `invalid`, `already_exists`, `custom`.
        public var code: String
        /// An explanation, sent with the `custom` code.
        public var message: String?
    }

    enum CodingKeys: String, CodingKey {
        case message
        case errors
        // The parser's decoder converts `documentation_url` before matching, so the key is its
        // camel-case form, not the JSON's.
        case documentationURL = "documentationUrl"
    }

    /// The message, then each field's explanation: `Validation Failed (name: name already exists)`.
    public var description: String {
        let details = (errors ?? []).map { "\($0.field ?? "?"): \($0.message ?? $0.code)" }
        return details.isEmpty ? message : "\(message) (\(details.joined(separator: "; ")))"
    }
}
