import Foundation

extension TransportResponse {
    /// The body decoded as `T` by `parser`. A plain `JSONParser` decodes without the response,
    /// so none is made for it (see ``LazyHTTPResponse``); any other parser, a `JSONParser`
    /// subclass included (its `getInstance` may read the response), gets the response.
    func decoded<T: Decodable>(by parser: any ResponseParser) throws -> T {
        if let json = parser as? JSONParser, type(of: json) == JSONParser.self {
            return try json.decoder.decode(T.self, from: data)
        }
        return try parser.getInstance(from: data, response: response)
    }
}
