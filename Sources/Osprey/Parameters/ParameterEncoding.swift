import Foundation

/// How query and form parameters are written: array and nested-dictionary notation, booleans,
/// dates, and key mapping. Keys of a dictionary are always sent sorted, so requests are
/// deterministic; array elements keep their order.
///
/// ```swift
/// var encoding = ParameterEncoding()
/// encoding.arrayStyle = .repeatedKey      // tags=a&tags=b
/// encoding.keyMapping = .snakeCase        // pageSize → page_size
/// ```
public struct ParameterEncoding: Sendable {
    /// How an array value is written.
    public enum ArrayStyle: Sendable {
        /// `tags[]=a&tags[]=b` (the default; Rails, PHP).
        case brackets
        /// `tags[0]=a&tags[1]=b`.
        case indexed
        /// `tags=a&tags=b`.
        case repeatedKey
        /// `tags=a,b` (elements must be plain values).
        case commaSeparated
    }

    /// How a `Bool` is written.
    public enum BoolStyle: Sendable {
        /// `true` / `false` (the default).
        case literal
        /// `1` / `0`.
        case numeric
    }

    /// How a `Date` is written.
    public enum DateStyle: Sendable {
        /// ISO 8601 with fractional seconds in UTC, `2024-05-01T12:00:00.000Z` (the default).
        case iso8601
        /// Seconds since 1970 (`1714564800`, or with a fraction when there is one).
        case secondsSince1970
        /// Milliseconds since 1970, as an integer.
        case millisecondsSince1970
        /// Your own format.
        case custom(@Sendable (Date) -> String)
    }

    /// Array notation; `.brackets` by default. Nested dictionaries always use `key[sub]`.
    public var arrayStyle = ArrayStyle.brackets
    /// Booleans; `.literal` by default.
    public var boolStyle = BoolStyle.literal
    /// Dates; `.iso8601` by default.
    public var dateStyle = DateStyle.iso8601
    /// Key mapping; keys are sent as written by default.
    public var keyMapping = KeyMapping.useDefaultKeys

    /// The defaults.
    public init() {}
}
