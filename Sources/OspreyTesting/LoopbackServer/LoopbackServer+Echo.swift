import Foundation

extension LoopbackServer {
    /// The JSON document an echo response carries: what the server saw of a request.
    public struct Echo: Codable, Sendable, Equatable {
        /// The method token.
        public var method: String
        /// The request target, still percent-encoded.
        public var target: String
        /// The path, still percent-encoded.
        public var path: String
        /// Header lines as `[name, value]` pairs, in the order received.
        public var headers: [[String]]
        /// The body, base64-encoded (bytes survive exactly).
        public var bodyBase64: String
        /// The id of the connection the request came on.
        public var connectionID: Int
        /// The `:name` path parameters of the matched route.
        public var pathParameters: [String: String]

        /// Describes a received request.
        public init(_ request: Request) {
            method = request.method
            target = request.target
            path = request.path
            headers = request.headers.map { [$0.name, $0.value] }
            bodyBase64 = request.body.base64EncodedString()
            connectionID = request.connectionID
            pathParameters = request.pathParameters
        }

        /// The decoded body bytes.
        public var body: Data { Data(base64Encoded: bodyBase64) ?? Data() }

        /// The first value of a header, compared case-insensitively.
        public func value(forHeader name: String) -> String? {
            headers.first { $0.first?.caseInsensitiveCompare(name) == .orderedSame }?.last
        }
    }
}

extension LoopbackServer.Response {
    /// A 200 JSON response describing `request` (see ``LoopbackServer/Echo``).
    public static func echo(of request: LoopbackServer.Request) -> Self {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding strings, ints and arrays of them cannot fail.
        let json = (try? encoder.encode(LoopbackServer.Echo(request))) ?? Data("{}".utf8)
        return .json(json)
    }
}
