/// A URL or path written as a string literal, where interpolated values are percent-encoded
/// according to where they appear.
///
/// ```swift
/// let name = "../a?b#c d/é"
/// let endpoint: Endpoint = "/users/\(name)/repos"
/// endpoint.rawValue  // "/users/..%2Fa%3Fb%23c%20d%2F%C3%A9/repos"
/// ```
///
/// - In the path, a value becomes exactly one segment: `/ ? # %` and everything else outside
///   RFC 3986's unreserved characters is encoded, and so are the dots of `.` and `..`.
/// - In the query (after `?`) or fragment, a value is encoded as one component, `& = + #` included.
/// - Before the path starts, a value is kept verbatim: the scheme and host part, such as
///   `"\(baseURL)/products"` or `"https://\(host)/v1"`. A value interpolated first is taken as that
///   part only if it contains `://`; otherwise it is the first path segment.
/// - `\(raw: path)` keeps a value verbatim anywhere, for an intentional multi-segment path;
///   `\(segments: ["a", "b c"])` encodes each element as a segment and joins them with `/`.
///
/// Trailing slashes are kept. A plain `String` can be used where an `Endpoint` is expected
/// through the overloads that take one; it is then used verbatim.
public struct Endpoint: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The assembled text, with interpolated values already percent-encoded.
    public let rawValue: String

    /// An endpoint from text used exactly as given.
    public init(verbatim text: String) {
        rawValue = text
    }

    /// An endpoint from a literal without interpolations.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// An endpoint from an interpolated literal.
    public init(stringInterpolation: Interpolation) {
        rawValue = stringInterpolation.text
    }

    /// The assembled text.
    public var description: String { rawValue }

    /// Builds an ``Endpoint`` from a literal, encoding each value for the place it appears.
    public struct Interpolation: StringInterpolationProtocol, Sendable {
        /// Where the text so far ends, which decides how the next value is encoded.
        enum Position {
            case start
            case authority
            case path
            case query
        }

        var text = ""
        var position = Position.start

        /// Reserves room for the literal.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        /// Appends literal text verbatim.
        public mutating func appendLiteral(_ literal: String) {
            appendVerbatim(literal)
        }

        /// Appends a value, encoded for its position (see ``Endpoint``).
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            let string = value.description
            switch position {
            case .start where string.contains("://"), .authority:
                appendVerbatim(string)
            case .start, .path:
                text += PercentEncoding.encodePathSegment(string)
                position = .path
            case .query:
                text += PercentEncoding.encode(string)
            }
        }

        /// Appends a value verbatim wherever it appears: the visible opt-out for a value that is
        /// meant to span several path segments or carry its own query.
        public mutating func appendInterpolation(raw value: String) {
            appendVerbatim(value)
        }

        /// Appends several path segments, each encoded, joined with `/`.
        public mutating func appendInterpolation(segments: [String]) {
            text += segments.map { PercentEncoding.encodePathSegment($0) }.joined(separator: "/")
            if position == .start || position == .authority { position = .path }
        }

        private mutating func appendVerbatim(_ piece: String) {
            text += piece
            position = Self.position(after: text)
        }

        static func position(after text: String) -> Position {
            if text.contains("?") || text.contains("#") { return .query }
            guard let separator = text.range(of: "://") else { return text.isEmpty ? .start : .path }
            return text[separator.upperBound...].contains("/") ? .path : .authority
        }
    }
}
