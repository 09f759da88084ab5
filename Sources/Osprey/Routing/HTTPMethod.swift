/// An HTTP method. The common ones are static members; any other token works too
/// (`HTTPMethod("PURGE")`). A method that is not an RFC 9110 token is refused with
/// ``APIError/invalidRequest(reason:)`` before anything is sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method as sent on the request line.
    public let rawValue: String

    /// Creates a method from its name, as given (methods are case-sensitive).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from its name, as given.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// The method name.
    public var description: String { rawValue }

    /// `GET`
    public static let get = HTTPMethod("GET")
    /// `POST`
    public static let post = HTTPMethod("POST")
    /// `PUT`
    public static let put = HTTPMethod("PUT")
    /// `PATCH`
    public static let patch = HTTPMethod("PATCH")
    /// `DELETE`
    public static let delete = HTTPMethod("DELETE")
    /// `HEAD`
    public static let head = HTTPMethod("HEAD")
    /// `OPTIONS`
    public static let options = HTTPMethod("OPTIONS")
    /// `TRACE`
    public static let trace = HTTPMethod("TRACE")
    /// `CONNECT`
    public static let connect = HTTPMethod("CONNECT")

    /// The methods that may be sent twice without harm (RFC 9110 section 9.2.2), by name.
    static let idempotentNames: Set<String> = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]
    /// Methods that change nothing on the server (RFC 9110 §9.2.1): others invalidate a cache.
    static let safeNames: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// True for methods whose requests carry no body: `GET` and `HEAD`.
    public var forbidsBody: Bool { self == .get || self == .head }

    /// True when the name is a non-empty RFC 9110 token, so it cannot split the request line.
    public var isValid: Bool { HTTPToken.isValid(rawValue) }
}

/// RFC 9110 §5.6.2 tokens: the syntax of methods and header names.
enum HTTPToken {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
    }

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
