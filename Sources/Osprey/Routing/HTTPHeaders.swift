import Foundation

/// Request or response headers: ordered, with case-insensitive names (RFC 9110 §5.1), so
/// setting `content-type` replaces `Content-Type`.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers["accept"] = "text/plain"          // replaces
/// headers.add(name: "Cache-Control", value: "no-cache")
/// headers.setAuthorization(.bearer("token"))
/// ```
///
/// Names must be tokens and values must not contain CR, LF or NUL: Osprey checks before
/// sending and fails the request with ``APIError/invalidRequest(reason:)`` otherwise.
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence,
    CustomStringConvertible
{
    /// One header line.
    public struct Field: Sendable, Hashable {
        /// The name, with the case it was given.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a header line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field] = []

    /// No headers.
    public init() {}

    /// Headers from a dictionary (in the dictionary's key order, sorted for determinism).
    public init(_ dictionary: [String: String]) {
        // Linear in the number of names (a head of 10,000 fields is a server's choice): only a
        // name repeated in another case takes the slower replacing path.
        var seen = Set<String>()
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            if seen.insert(name.lowercased()).inserted {
                fields.append(Field(name: name, value: value))
            } else {
                self[name] = value
            }
        }
    }

    /// The fields with each repeated name's values joined by `", "` into its first field, in
    /// order: a response's headers as `HTTPURLResponse` presents them, without making one.
    /// Linear in the number of fields.
    var joiningRepeatedNames: HTTPHeaders {
        var joined = HTTPHeaders()
        var positions: [String: Int] = [:]
        for field in fields {
            let folded = field.name.lowercased()
            if let position = positions[folded] {
                joined.fields[position].value += ", " + field.value
            } else {
                positions[folded] = joined.fields.count
                joined.fields.append(field)
            }
        }
        return joined
    }

    /// Headers from lines in the order received, repeated names kept as separate fields.
    init(lines: [(name: String, value: String)]) {
        fields = lines.map { Field(name: $0.name, value: $0.value) }
    }

    /// Headers from a literal, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The first value for `name` (case-insensitive); setting replaces every value for that name
    /// (keeping the first one's position), and setting nil removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            guard let newValue else {
                remove(name: name)
                return
            }
            if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
                fields[index] = Field(name: name, value: newValue)
                let rest = fields[(index + 1)...].filter { !Self.same($0.name, name) }
                fields.replaceSubrange((index + 1)..., with: rest)
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// Adds a value without replacing existing ones (for headers that may repeat).
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every value for `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether a header called `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// These headers with `other`'s values replacing any of the same name.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        let replaced = Set(other.fields.map { $0.name.lowercased() })
        var merged = self
        merged.fields = fields.filter { !replaced.contains($0.name.lowercased()) } + other.fields
        return merged
    }

    /// The distinct names, in order of first appearance.
    public var names: [String] {
        var seen: Set<String> = []
        return fields.compactMap { seen.insert($0.name.lowercased()).inserted ? $0.name : nil }
    }

    /// A dictionary with repeated values joined by `", "`.
    public var dictionary: [String: String] {
        // One pass: each field's value joins its name's first spelling.
        var spellings: [String: String] = [:]
        var result: [String: String] = [:]
        for field in fields {
            let folded = field.name.lowercased()
            if let spelling = spellings[folded] {
                result[spelling, default: ""] += ", " + field.value
            } else {
                spellings[folded] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    /// The number of header lines.
    public var count: Int { fields.count }

    /// Iterates over the header lines in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// `Name: value` lines with credentials redacted (see ``HTTPHeaders/isSensitive(_:declared:)``).
    public var description: String {
        fields.map { "\($0.name): \(Self.isSensitive($0.name) ? "<redacted>" : $0.value)" }
            .joined(separator: "\n")
    }

    /// Throws ``APIError/invalidRequest(reason:)`` for a name that is not a token or a value
    /// containing CR, LF, NUL or another control character (horizontal tab aside).
    public func validate() throws {
        for field in fields {
            guard HTTPToken.isValid(field.name) else {
                throw APIError.invalidRequest(
                    reason: "header name \(field.name.debugDescription) is not a valid token")
            }
            let valid = field.value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
            guard valid else {
                let shown = Self.isSensitive(field.name) ? "<redacted>" : field.value.debugDescription
                throw APIError.invalidRequest(
                    reason:
                        "header \(field.name) has a value with CR, LF, NUL or another control character: \(shown)"
                )
            }
        }
    }

    /// Whether a header's value is a credential: never shown in descriptions, logs or cURL
    /// commands, and removed when a redirect leaves the request's origin. The one rule Osprey
    /// uses for both, compared case-insensitively.
    /// - Parameters:
    ///   - name: The header name, in any case.
    ///   - declared: Names declared secret as well, in any case (``APIConfiguration/sensitiveHeaders``).
    /// - Returns: True for `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
    ///   `Authentication`, names containing `api-key`, `apikey`, `token` or `secret`, and the
    ///   declared names.
    public static func isSensitive(_ name: String, declared: Set<String> = []) -> Bool {
        let lowered = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie", "set-cookie", "authentication"].contains(
            lowered)
            || lowered.contains("api-key") || lowered.contains("apikey") || lowered.contains("token")
            || lowered.contains("secret")
            || declared.contains { same($0, name) }
    }

    /// Whether two field names are the same but for ASCII case (RFC 9110 §5.1: names are
    /// tokens). Foundation's `caseInsensitiveCompare` goes through NSString and a locale, which
    /// showed in profiles: headers are looked up many times per request.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        func folded(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte | 0x20 : byte }
        return lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { folded($0) == folded($1) }
    }
}

extension HTTPHeaders {
    /// Credentials for the `Authorization` header.
    public enum Authorization: Sendable, Hashable {
        /// `Basic` with base64 of `username:password` (RFC 7617, UTF-8).
        case basic(username: String, password: String)
        /// `Bearer` with a token (RFC 6750).
        case bearer(String)

        /// The header value.
        public var headerValue: String {
            switch self {
            case .basic(let username, let password):
                "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
            case .bearer(let token):
                "Bearer \(token)"
            }
        }
    }

    /// Sets the `Authorization` header from credentials, replacing any other.
    public mutating func setAuthorization(_ credentials: Authorization) {
        self["Authorization"] = credentials.headerValue
    }
}
