import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AbstractAPI {
    /// Sends a request and decodes the body as `T` with the API's parser.
    /// - Parameters:
    ///   - route: The method and URL.
    ///   - parameters: Query, body and headers.
    /// - Returns: A promise of the decoded value.
    @_disfavoredOverload  // so that a `Promise<T?>` result picks the overload that accepts no body
    public func request<T: Decodable & Sendable>(route: Route, parameters: (any RequestParameters)? = nil)
        -> Promise<T>
    {
        perform(route: route, parameters: parameters) { exchange, parser in
            try exchange.decoded(by: parser)
        }
    }

    /// Sends a request whose answer may have no body: nil for 204, 205 or an empty body (or a
    /// JSON `null`), otherwise the body decoded as `T` with the API's parser.
    /// - Parameters:
    ///   - route: The method and URL.
    ///   - parameters: Query, body and headers.
    /// - Returns: A promise of the decoded value, or nil.
    public func request<T: Decodable & Sendable>(route: Route, parameters: (any RequestParameters)? = nil)
        -> Promise<T?>
    {
        perform(route: route, parameters: parameters) { exchange, parser in
            if Self.hasNoBody(exchange) { return nil }
            return try exchange.decoded(by: parser) as T?
        }
    }

    /// Sends a request whose body does not matter (204 No Content, an empty body, or any body).
    public func request(route: Route, parameters: (any RequestParameters)? = nil) -> Promise<Void> {
        perform(route: route, parameters: parameters) { _, _ in }
    }

    /// Sends a request and returns the raw body.
    public func request(route: Route, parameters: (any RequestParameters)? = nil) -> Promise<Data> {
        perform(route: route, parameters: parameters) { exchange, _ in exchange.data }
    }

    /// Sends a request and returns the body as text, in the charset the response names
    /// (UTF-8 when it names none).
    public func request(route: Route, parameters: (any RequestParameters)? = nil) -> Promise<String> {
        perform(route: route, parameters: parameters) { exchange, _ in try Self.text(of: exchange) }
    }

    /// Sends a request and returns the decoded value with the status code and headers.
    public func request<T: Decodable & Sendable>(
        route: Route,
        parameters: (any RequestParameters)? = nil
    ) -> Promise<APIResponse<T>> {
        perform(route: route, parameters: parameters) { exchange, parser in
            APIResponse(value: try exchange.decoded(by: parser), exchange: exchange)
        }
    }

    /// Sends a request and returns the raw body with the status code and headers.
    public func request(route: Route, parameters: (any RequestParameters)? = nil) -> Promise<
        APIResponse<Data>
    > {
        perform(route: route, parameters: parameters) { exchange, _ in
            APIResponse(value: exchange.data, exchange: exchange)
        }
    }

    /// Sends a request and returns the body as text (as `Promise<String>` decodes it) with the
    /// status code and headers.
    public func request(route: Route, parameters: (any RequestParameters)? = nil) -> Promise<
        APIResponse<String>
    > {
        perform(route: route, parameters: parameters) { exchange, _ in
            APIResponse(value: try Self.text(of: exchange), exchange: exchange)
        }
    }

    /// Whether an answer has no body for an optional result: 204, 205 or an empty body.
    static func hasNoBody(_ exchange: TransportResponse) -> Bool {
        [204, 205].contains(exchange.statusCode) || exchange.data.isEmpty
    }

    static func text(of exchange: TransportResponse) throws -> String {
        let encoding: String.Encoding =
            switch exchange.response.textEncodingName?.lowercased() {
            case "iso-8859-1", "latin1", "iso_8859-1": .isoLatin1
            case "us-ascii", "ascii": .ascii
            case "utf-16": .utf16
            case "utf-16le": .utf16LittleEndian
            case "utf-16be": .utf16BigEndian
            case "windows-1252", "cp1252": .windowsCP1252
            default: .utf8
            }
        guard let text = String(data: exchange.data, encoding: encoding) else {
            throw APIError.parsingFailed(
                underlying: CocoaError(.fileReadInapplicableStringEncoding),
                context: APIError.Context(
                    request: exchange.request, response: exchange.response, data: exchange.data)
            )
        }
        return text
    }
}
