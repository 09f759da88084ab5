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

    /// Writes the JSON body.
    open override func encode(into draft: inout RequestDraft) throws {
        let encoder = self.encoder ?? Self.makeEncoder(keyMapping: draft.encoding.keyMapping)
        do {
            draft.setBody(try encoder.encode(value), contentType: "application/json")
        } catch {
            throw APIError.encodingFailed(
                reason: "could not encode \(type(of: value)) as JSON", underlying: error)
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
