import Foundation
import Osprey
import OspreyTesting

/// A plain API client against a loopback server, for the pipeline tests.
final class TestAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    init(
        _ server: LoopbackServer, host: String = "127.0.0.1", parser: any ResponseParser = JSONParser(),
        transport: (any HTTPTransport)? = nil
    ) {
        baseURL = server.baseURL(host: host).absoluteString
        super.init(responseParser: parser, transport: transport ?? TestTransport.make())
        responseQueue = DispatchQueue(label: "test.api.response")
    }

    /// Returns once the work queued on the request queue so far has run.
    func drainRequestQueue() async {
        await withCheckedContinuation { done in
            requestQueueForTesting.async(flags: .barrier) { done.resume() }
        }
    }
}

struct ServerMessage: Decodable, Error, Sendable, Equatable {
    var code: Int
    var message: String
}

/// Decodes `{"code", "message"}` error bodies.
final class MessageParser: JSONParser {
    override func getError(from data: Data, response: URLResponse?) -> (any Error)? {
        try? decoder.decode(ServerMessage.self, from: data)
    }
}

extension Promise {
    /// The rejection as an `APIError`, or nil.
    var apiError: APIError? {
        get async {
            if case .failure(let error as APIError) = await result { return error }
            return nil
        }
    }
}

/// The transport the pipeline tests use unless they pass one: `URLSessionTransport`, or the
/// libcurl transport when `OSPREY_TEST_TRANSPORT=curl` (Linux).
enum TestTransport {
    static func make() -> (any HTTPTransport)? {
        #if os(Linux)
            if ProcessInfo.processInfo.environment["OSPREY_TEST_TRANSPORT"] == "curl" {
                return CurlTransport()
            }
        #endif
        return nil
    }
}
