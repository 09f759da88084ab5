import Foundation

/// Flattens a parameter dictionary into percent-encoded `key=value` pairs for a query string or
/// an `application/x-www-form-urlencoded` body (RFC 3986 escaping of keys and values).
struct FormEncoder {
    let encoding: ParameterEncoding

    /// `a=1&b%5B%5D=x` for the parameters; nil values are left out.
    func encode(_ parameters: [String: any Sendable]) throws -> String {
        var pairs: [(String, String)] = []
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            try flatten(encoding.keyMapping.map(key), value, into: &pairs)
        }
        return pairs.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(
            separator: "&")
    }

    private func flatten(_ key: String, _ value: Any, into pairs: inout [(String, String)]) throws {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return }
            return try flatten(key, wrapped, into: &pairs)
        }
        if let dictionary = value as? [String: Any] {
            for (subkey, subvalue) in dictionary.sorted(by: { $0.key < $1.key }) {
                try flatten("\(key)[\(encoding.keyMapping.map(subkey))]", subvalue, into: &pairs)
            }
            return
        }
        if let array = value as? [Any] {
            return try flatten(key, array: array, into: &pairs)
        }
        pairs.append((key, try scalar(value, key: key)))
    }

    private func flatten(_ key: String, array: [Any], into pairs: inout [(String, String)]) throws {
        switch encoding.arrayStyle {
        case .brackets:
            for element in array { try flatten("\(key)[]", element, into: &pairs) }
        case .indexed:
            for (index, element) in array.enumerated() {
                try flatten("\(key)[\(index)]", element, into: &pairs)
            }
        case .repeatedKey:
            for element in array { try flatten(key, element, into: &pairs) }
        case .commaSeparated:
            let values = try array.compactMap { element -> String? in
                if let optional = element as? any OptionalValue, optional.wrappedValue == nil { return nil }
                return try scalar(element, key: key)
            }
            pairs.append((key, values.joined(separator: ",")))
        }
    }

    private func scalar(_ value: Any, key: String) throws -> String {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let bool as Bool:
            switch encoding.boolStyle {
            case .literal: return bool ? "true" : "false"
            case .numeric: return bool ? "1" : "0"
            }
        case let date as Date: return format(date)
        case let double as Double: return Self.format(double)
        case let float as Float: return Self.format(Double(float))
        case let decimal as Decimal: return "\(decimal)"
        case let url as URL: return url.absoluteString
        case let uuid as UUID: return uuid.uuidString
        case let integer as any BinaryInteger: return "\(integer)"
        case let raw as any RawRepresentable:
            return try scalar(raw.rawValue, key: key)
        default: break
        }
        throw APIError.encodingFailed(
            reason:
                "parameter \(key.debugDescription) has a value of type \(type(of: value)), which has no form encoding",
            underlying: nil
        )
    }

    private func format(_ date: Date) -> String {
        switch encoding.dateStyle {
        case .iso8601:
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        case .secondsSince1970:
            return Self.format(date.timeIntervalSince1970)
        case .millisecondsSince1970:
            return String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .custom(let format):
            return format(date)
        }
    }

    /// Integral values without a fraction (`2`, not `2.0`); others in the shortest exact form.
    private static func format(_ double: Double) -> String {
        if double.rounded() == double, abs(double) < 1e15 { return String(Int64(double)) }
        return "\(double)"
    }
}

/// Lets the encoder see through `Optional` values stored as `any Sendable`.
protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedValue: Any? {
        switch self {
        case .some(let value): value
        case .none: nil
        }
    }
}
