import Foundation
import Osprey

/// Unwraps the server's envelope and turns its error bodies into ``ServerProblem``s: the two
/// overrides a `JSONParser` subclass usually needs.
final class EnvelopeParser: JSONParser {
    override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
        try decoder.decode(Envelope<T>.self, from: data).data
    }

    override func getError(from data: Data, response: URLResponse?) -> (any Error)? {
        ServerProblem.decode(from: data, with: decoder)
    }
}

/// The demo's client, written the Osprey way: a subclass of `AbstractAPI` with a base URL, one
/// method per call.
final class DemoAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    init(baseURL: String) {
        self.baseURL = baseURL
        super.init(responseParser: EnvelopeParser())
    }

    func user(_ login: String) -> Promise<User> {
        request(route: get(endpoint: "/users/\(login)"))
    }

    func repositories(of login: String) -> Promise<[Repository]> {
        request(route: get(endpoint: "/users/\(login)/repos"), parameters: URLParameters(["sort": "stars"]))
    }

    /// A form login (`application/x-www-form-urlencoded`), as older APIs want it.
    func logIn(_ credentials: Credentials) -> Promise<Session> {
        request(
            route: post(endpoint: "/login"),
            parameters: FormURLParameters([
                "username": credentials.username, "password": credentials.password,
            ]))
    }

    /// Uploads a file as a multipart part, streamed from disk.
    func upload(_ file: URL) -> Promise<Upload> {
        request(
            route: post(endpoint: "/uploads"),
            parameters: MultipartParameters(parts: [Part(name: "file", fileURL: file)]))
    }

    func status() -> Promise<String> {
        request(route: get(endpoint: "/status"))
    }

    /// An answer that arrives as server-sent events, one word each.
    func answer(to prompt: String) -> ResponseStream {
        stream(route: post(endpoint: "/chat"), parameters: JSONParameters(["prompt": prompt]))
    }

    func search(_ query: String, timeout: TimeInterval? = nil) -> Promise<String> {
        request(route: get(endpoint: "/search"), parameters: URLParameters(["q": query], timeout: timeout))
    }
}

extension Request {
    /// A typed request in the SimpleHTTP style: the result type travels with the request.
    static func createSession(_ credentials: Credentials) -> Request<Session> {
        .post("/sessions", body: credentials)
    }
}
