import Foundation

extension LoopbackServer.Request {
    /// The body decoded from JSON as `type`, to check what a client sent.
    /// - Throws: The decoder's error when the body is not that JSON.
    public func decodedBody<Value: Decodable>(as type: Value.Type, decoder: JSONDecoder = JSONDecoder())
        throws -> Value
    {
        try decoder.decode(type, from: body)
    }

    /// The body's fields when it is `application/x-www-form-urlencoded`, decoded, in order.
    public var formFields: [URLQueryItem] {
        bodyText.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : nil
            return URLQueryItem(name: name, value: value)
        }
    }
}
