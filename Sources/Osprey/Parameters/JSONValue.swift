import Foundation

/// A JSON document built from an untyped collection (`["model": "m", "n": 2]`), for
/// the dictionary and array initialisers of ``JSONParameters``: strings, numbers, booleans,
/// nil or `NSNull`, arrays, dictionaries with `String` keys, and any `Encodable` value inside
/// them. Anything else is kept as the reason the body cannot be encoded, so that building the
/// parameters never fails and sending them fails with a clear ``APIError/encodingFailed(reason:underlying:)``.
enum JSONValue: Encodable, Sendable {
    case null
    case bool(Bool)
    case encodable(any Encodable & Sendable)
    case array([JSONValue])
    case object([String: JSONValue])
    /// A value JSON cannot hold, at `path` (`items[2].price`), of `type`.
    case unsupported(path: String, type: String)

    /// Reads `value`, naming the place of a value JSON cannot hold.
    init(_ value: Any?, path: String = "") {
        guard let value = Self.unwrapped(value) else {
            self = .null
            return
        }
        switch value {
        case is NSNull: self = .null
        case let bool as Bool: self = .bool(bool)
        case let string as String: self = .encodable(string)
        case let object as [String: any Sendable]:
            self = .object(
                object.reduce(into: [:]) { result, entry in
                    result[entry.key] = JSONValue(entry.value, path: Self.join(path, entry.key))
                })
        case let array as [any Sendable]:
            self = .array(array.enumerated().map { JSONValue($1, path: "\(path)[\($0)]") })
        case let encodable as any Encodable & Sendable:
            self = .encodable(encodable)
        default:
            self = .unsupported(path: path.isEmpty ? "the top level" : path, type: "\(type(of: value))")
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .encodable(let value):
            // Through the container, not `value.encode(to:)`: the encoder's strategies (dates
            // as ISO 8601) apply to what it encodes, not to what encodes itself.
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.singleValueContainer()
            try container.encode(values)
        case .object(let members):
            var container = encoder.singleValueContainer()
            try container.encode(members)
        case .unsupported(let path, let type):
            throw NotJSON(path: path, type: type)
        }
    }

    /// The value inside any number of `Optional`s; nil for none.
    private static func unwrapped(_ value: Any?) -> Any? {
        var current = value
        while let some = current, let optional = some as? any OptionalValue {
            current = optional.wrappedValue
        }
        return current
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }
}

/// A value in a JSON body's collection that JSON cannot hold.
struct NotJSON: Error, CustomStringConvertible {
    var path: String
    var type: String

    var description: String {
        "the value at \(path) is a \(type), which JSON cannot hold (use strings, numbers, booleans, "
            + "nil, arrays, dictionaries with String keys, or Encodable values)"
    }
}
