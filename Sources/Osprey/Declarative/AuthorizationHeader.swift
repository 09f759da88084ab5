import Foundation

/// The value of an `Authorization` header, for `@Authorization` and
/// ``RequestBuilder/addAuthorization(_:)``.
///
/// ```swift
/// @Authorization(.basic(username: "joshuawright11", password: "P@ssw0rd"))
/// @Authorization(.bearer("<my-auth-token>"))
/// ```
public struct AuthorizationHeader: Sendable, Hashable {
    /// The header value, such as `Bearer abc`.
    public var value: String

    /// A header with this exact value.
    public init(value: String) {
        self.value = value
    }

    /// HTTP Basic authentication (RFC 7617): `Basic base64(username:password)`.
    public static func basic(username: String, password: String) -> AuthorizationHeader {
        AuthorizationHeader(value: "Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
    }

    /// A bearer token (RFC 6750): `Bearer token`.
    public static func bearer(_ token: String) -> AuthorizationHeader {
        AuthorizationHeader(value: "Bearer \(token)")
    }
}
