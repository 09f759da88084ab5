import Foundation

/// Turns an `Encodable` value into the dictionary that form encoding reads: strings, numbers,
/// booleans, arrays and nested dictionaries, with nil values left out.
enum FormValues {
    /// The value's top-level fields.
    /// - Throws: ``APIError/encodingFailed(reason:underlying:)`` when it is not an object.
    static func dictionary(encoding value: any Encodable) throws -> [String: any Sendable] {
        let object: Any
        do {
            let data = try JSONParameters.makeEncoder(keyMapping: .useDefaultKeys).encode(value)
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw APIError.encodingFailed(
                reason: "could not encode \(type(of: value)) as a form", underlying: error)
        }
        guard let dictionary = object as? [String: Any] else {
            throw APIError.encodingFailed(
                reason: "\(type(of: value)) does not encode as an object", underlying: nil)
        }
        return dictionary.compactMapValues(plain)
    }

    /// A JSONSerialization value as a plain Swift value (booleans kept apart from numbers).
    private static func plain(_ value: Any) -> (any Sendable)? {
        switch value {
        case is NSNull: return nil
        case let string as String: return string
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return number.boolValue }
            if let integer = Int(exactly: number.doubleValue),
                !"fd".contains(String(cString: number.objCType))
            {
                return integer
            }
            return number.doubleValue
        case let array as [Any]: return array.compactMap(plain)
        case let dictionary as [String: Any]: return dictionary.compactMapValues(plain)
        default: return "\(value)"
        }
    }
}
