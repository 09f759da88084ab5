import Foundation

/// How Swift property and parameter names become keys on the wire: unchanged, `snake_case`, or
/// a function of your own. Applied to query and form keys and to JSON bodies; for decoding, see
/// ``KeyMapping/decodingStrategy``.
public enum KeyMapping: Sendable {
    /// Keys are sent as written.
    case useDefaultKeys
    /// `camelCase` becomes `camel_case`, with acronyms kept together (`userID` → `user_id`).
    case snakeCase
    /// Your own mapping.
    case custom(@Sendable (String) -> String)

    /// Maps one key.
    public func map(_ key: String) -> String {
        switch self {
        case .useDefaultKeys: key
        case .snakeCase: Self.snakeCased(key)
        case .custom(let transform): transform(key)
        }
    }

    /// The matching `JSONEncoder` strategy.
    public var encodingStrategy: JSONEncoder.KeyEncodingStrategy {
        switch self {
        case .useDefaultKeys: .useDefaultKeys
        case .snakeCase: .convertToSnakeCase
        case .custom(let transform):
            .custom { path in MappedKey(transform(path.last?.stringValue ?? "")) }
        }
    }

    /// The matching `JSONDecoder` strategy. A custom mapping has no inverse, so it decodes keys
    /// unchanged: give the parser a decoder of your own for that case. Foundation reads
    /// `user_id` as `userId`: name properties that way (or use coding keys) for acronyms.
    public var decodingStrategy: JSONDecoder.KeyDecodingStrategy {
        switch self {
        case .snakeCase: .convertFromSnakeCase
        case .useDefaultKeys, .custom: .useDefaultKeys
        }
    }

    /// `camelCase` → `camel_case`: a word boundary before an upper-case letter that follows a
    /// lower-case letter or digit, or that starts a word after an acronym (`URLValue` → `url_value`).
    static func snakeCased(_ key: String) -> String {
        let characters = Array(key)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let afterLower = previous.isLowercase || previous.isNumber
                let endsAcronym = previous.isUppercase && (next?.isLowercase ?? false)
                if (afterLower || endsAcronym) && previous != "_" { result.append("_") }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }
}

private struct MappedKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
