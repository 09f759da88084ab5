import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response's head kept as its parts, and made into an `HTTPURLResponse` the first time one is
/// asked for.
///
/// FoundationNetworking's `HTTPURLResponse` initialiser capitalises every field name and compares
/// it through NSString with a locale: 9 % of the CPU with 16 small requests in flight. Most
/// requests never need one: the status validates them, and `JSONParser` decodes without it.
final class LazyHTTPResponse: Sendable {
    let url: URL
    let statusCode: Int
    let httpVersion: String?
    let headers: HTTPHeaders
    private let made = Locked<HTTPURLResponse?>(nil)

    init(url: URL, statusCode: Int, httpVersion: String?, headers: HTTPHeaders) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.headers = headers
    }

    /// Whether the response was made (tests).
    var isMade: Bool { made.withLock { $0 != nil } }

    /// The response, made once (under the lock, so every caller gets the same object).
    var value: HTTPURLResponse {
        made.withLock { made in
            if let made { return made }
            let fields = headers.dictionary
            // The initialiser fails for no input Osprey makes; without fields it cannot fail.
            let response =
                HTTPURLResponse(
                    url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
                ?? HTTPURLResponse(
                    url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: nil)!
            made = response
            return response
        }
    }
}

/// A response's head: an `HTTPURLResponse` a transport made, or the parts to make one from.
enum HTTPResponseSource: Sendable {
    case made(HTTPURLResponse)
    case parts(LazyHTTPResponse)

    var response: HTTPURLResponse {
        switch self {
        case .made(let response): response
        case .parts(let parts): parts.value
        }
    }

    var statusCode: Int {
        switch self {
        case .made(let response): response.statusCode
        case .parts(let parts): parts.statusCode
        }
    }

    var headers: HTTPHeaders {
        switch self {
        case .made(let response): HTTPHeaders(response)
        case .parts(let parts): parts.headers
        }
    }

    /// The header fields with repeated names joined, as `HTTPURLResponse` has them (what
    /// ``APIResponse/headers`` promises), made without one.
    var joinedHeaders: HTTPHeaders {
        switch self {
        case .made(let response): HTTPHeaders(response)
        case .parts(let parts): parts.headers.joiningRepeatedNames
        }
    }

    var url: URL? {
        switch self {
        case .made(let response): response.url
        case .parts(let parts): parts.url
        }
    }

    /// Whether an `HTTPURLResponse` exists yet (tests).
    var isMade: Bool {
        switch self {
        case .made: true
        case .parts(let parts): parts.isMade
        }
    }
}
