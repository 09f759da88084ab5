import Foundation

/// A JSON body from any `Encodable` value: `JSONParameters(product)`.
///
/// Without an encoder of your own, dates are written as ISO 8601 and keys follow the API's
/// ``KeyMapping``. Sent with `Content-Type: application/json` unless you set another.
/// A `GET` or `HEAD` cannot carry it: the request fails with ``APIError/invalidRequest(reason:)``.
open class JSONParameters: BaseParameters, @unchecked Sendable {
    // @unchecked: immutable after init (the encoder is only used to encode, one call at a time
    // per request); the inherited headers are locked by the base class.

    /// The value to encode.
    public let value: any Encodable & Sendable
    /// The encoder given at creation, if any.
    public let encoder: JSONEncoder?

    /// Creates a JSON body.
    public init(
        _ value: some Encodable & Sendable,
        encoder: JSONEncoder? = nil,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil
    ) {
        self.value = value
        self.encoder = encoder
        super.init(headers: headers, timeout: timeout)
    }

    /// Creates a JSON body from a dictionary of mixed values, as Alamofire users write them:
    /// `JSONParameters(["model": "m", "n": 2, "stream": true])`. Its values may be strings,
    /// numbers, booleans, nil or `NSNull`, arrays and dictionaries of them, and `Encodable`
    /// values (a `Date` is written as the API writes dates). A value of any other type fails the
    /// request before it is sent, with ``APIError/encodingFailed(reason:underlying:)`` naming its
    /// place (`messages[1].content`) and its type.
    public convenience init(
        _ object: [String: any Sendable],
        encoder: JSONEncoder? = nil,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil
    ) {
        self.init(JSONValue(object), encoder: encoder, headers: headers, timeout: timeout)
    }

    /// Creates a JSON body from an array of mixed values (see the dictionary's initialiser for
    /// what they may be).
    public convenience init(
        _ array: [any Sendable],
        encoder: JSONEncoder? = nil,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil
    ) {
        self.init(JSONValue(array), encoder: encoder, headers: headers, timeout: timeout)
    }

    /// Writes the JSON body.
    open override func encode(into draft: inout RequestDraft) throws {
        let encoder = self.encoder ?? Self.makeEncoder(keyMapping: draft.encoding.keyMapping)
        do {
            draft.setBody(try encoder.encode(value), contentType: "application/json")
        } catch let error as NotJSON {
            throw APIError.encodingFailed(reason: error.description, underlying: nil)
        } catch {
            let described = value is JSONValue ? "the dictionary or array" : "\(type(of: value))"
            throw APIError.encodingFailed(reason: "could not encode \(described) as JSON", underlying: error)
        }
    }

    /// The encoder used when none is given: ISO 8601 dates, sorted keys (deterministic bodies),
    /// and the key mapping.
    public static func makeEncoder(keyMapping: KeyMapping) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = keyMapping.encodingStrategy
        return encoder
    }
}
