import Foundation

// What the demo's API sends and receives.

struct User: Codable, Sendable {
    var login: String
    var name: String
}

struct Repository: Codable, Sendable {
    var name: String
    var stars: Int
}

struct Credentials: Codable, Sendable {
    var username: String
    var password: String
}

struct Session: Codable, Sendable {
    var token: String
}

struct Upload: Codable, Sendable {
    var receivedBytes: Int
}

/// Every answer of the server is wrapped: `{"data": …}`, or `{"error": {…}}` when it fails.
struct Envelope<Wrapped: Decodable>: Decodable {
    var data: Wrapped
}

/// The server's error body, decoded into a typed error by ``EnvelopeParser``.
struct ServerProblem: Decodable, Error, Sendable {
    var code: String
    var message: String

    private struct Wrapper: Decodable {
        var error: ServerProblem
    }

    static func decode(from data: Data, with decoder: JSONDecoder) -> ServerProblem? {
        try? decoder.decode(Wrapper.self, from: data).error
    }
}
