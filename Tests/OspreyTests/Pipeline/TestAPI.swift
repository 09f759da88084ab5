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
        // Ten minutes without progress instead of one: many tests hold a response (for an hour)
        // and then cancel it, and a busy runner (ThreadSanitizer, the suites side by side on two
        // cores) was seen to hold a test for over a minute between two lines, so the request
        // timed out first. Tests of timeouts set their own.
        configuration.timeout = 600
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

/// The transport the pipeline tests use unless they pass one: the library's default (the
/// libcurl transport on Linux), or `URLSessionTransport` when `OSPREY_TEST_TRANSPORT=urlsession`.
/// CI runs every suite both ways.
enum TestTransport {
    static func make() -> (any HTTPTransport)? {
        switch ProcessInfo.processInfo.environment["OSPREY_TEST_TRANSPORT"] {
        case "urlsession": URLSessionTransport()
        case "curl": CurlTransport()
        default: nil
        }
    }

    /// A new transport of the kind the tests run on, with `cookies` as its jar.
    static func make(cookies: CookieJar?) -> any HTTPTransport {
        if isURLSession { return URLSessionTransport(cookies: cookies) }
        #if canImport(CCurl)
            return CurlTransport(cookies: cookies) ?? URLSessionTransport(cookies: cookies)
        #else
            return URLSessionTransport(cookies: cookies)
        #endif
    }

    /// Whether the tests run on `URLSessionTransport` (to name what differs between the two).
    static var isURLSession: Bool {
        #if os(Linux)
            ProcessInfo.processInfo.environment["OSPREY_TEST_TRANSPORT"] == "urlsession"
        #else
            true
        #endif
    }
}
