import Foundation
import Osprey
import OspreyTesting

// The models the Papyrus README's snippets use.

struct User: Codable, Sendable, Equatable {
    var name: String
}

struct Todo: Codable, Sendable, Equatable {
    let name: String
    let isDone: Bool
    let tags: [String]
}

struct Repository: Codable, Sendable, Equatable {
    var name: String
}

struct Transaction: Codable, Sendable, Equatable {
    var merchant: String
}

struct Card: Codable, Sendable, Equatable {
    var number: String
}

struct Post: Codable, Sendable, Equatable {
    var id: Int
}

extension JSONEncoder {
    static var iso8601: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// A loopback server whose every route answers `body` (JSON) and records the request.
func makeServer(answering body: String = "{}", status: Int = 200) throws -> LoopbackServer {
    let server = try LoopbackServer()
    server.route("/*rest") { _ in .json(body, status: status) }
    return server
}

extension LoopbackServer {
    /// The provider of a client that talks to this server.
    var provider: Provider { Provider(baseURL: baseURL.absoluteString) }

    /// The one request received so far.
    var onlyRequest: Request? { requests.count == 1 ? requests[0] : nil }

    /// The last request's body as a JSON object.
    func lastJSONBody() throws -> [String: Any]? {
        guard let body = requests.last?.body else { return nil }
        return try JSONSerialization.jsonObject(with: body) as? [String: Any]
    }
}
