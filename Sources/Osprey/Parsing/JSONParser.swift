import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decodes JSON bodies with its `decoder`; sends `Accept: application/json`.
///
/// Subclass it to unwrap an envelope or decode typed error bodies:
///
/// ```swift
/// class CustomJSONParser: JSONParser {
///     override func getInstance<T>(from data: Data, response: URLResponse?) throws -> T where T: Decodable {
///         try decoder.decode(Envelope<T>.self, from: data).results
///     }
///     override func getError(from data: Data, response: URLResponse?) -> (any Error)? {
///         try? decoder.decode(ServerError.self, from: data)
///     }
/// }
/// ```
open class JSONParser: ResponseParser {
    /// The decoder. By default it reads ISO 8601 dates (as ``JSONParameters`` writes them).
    public let decoder: JSONDecoder

    /// Creates a parser with a decoder of your own.
    public init(decoder: JSONDecoder) {
        self.decoder = decoder
    }

    /// Creates a parser whose decoder reads ISO 8601 dates and maps keys (`.snakeCase` reads
    /// `display_name` into `displayName`).
    public convenience init(keyMapping: KeyMapping = .useDefaultKeys) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.keyDecodingStrategy = keyMapping.decodingStrategy
        self.init(decoder: decoder)
    }

    /// `application/json`.
    open var acceptHeader: String? { "application/json" }

    /// Decodes the body as `T`.
    open func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
        try decoder.decode(T.self, from: data)
    }

    /// No typed server errors; override to decode your API's error body.
    open func getError(from data: Data, response: URLResponse?) -> (any Error)? {
        nil
    }
}
