import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The base class of an API client: subclass it and describe each call as a route plus
/// parameters; every call returns a promise at once and does its work on background queues.
///
/// ```swift
/// final class RepositoriesAPI: AbstractAPI, @unchecked Sendable {
///     func repositoriesOf(_ username: String) -> Promise<[Repository]> {
///         request(route: .get("https://api.github.com/users/\(username)/repos"))
///     }
/// }
///
/// let api = RepositoriesAPI(responseParser: JSONParser())
/// api.repositoriesOf("username").onSuccess { print($0) }.onError { print($0) }
/// ```
///
/// Swift 6 asks subclasses to restate `@unchecked Sendable`; keep any mutable state of your own
/// behind a lock. A request in flight keeps the API alive: releasing the API neither loses nor
/// cancels its requests; only `cancel()` on a promise cancels.
open class AbstractAPI: @unchecked Sendable {
    // @unchecked: `settings` is the only mutable state and is locked; the parser and transport
    // are immutable references (see ResponseParser on sharing the parser across threads).

    private struct Settings {
        var responseQueue: DispatchQueue
        var configuration: APIConfiguration
    }

    /// Decodes response bodies.
    public let responseParser: any ResponseParser
    /// Sends requests.
    public let transport: any HTTPTransport
    private let settings: Locked<Settings>
    let requestQueue = DispatchQueue(label: "osprey.api.request", attributes: .concurrent)
    /// Whether small responses may be finished where the transport completed them.
    let inlineConclusion = InlineConclusion()
    /// Whether the transport settles its promises on a queue of its own (``SettlesOnItsOwnQueue``):
    /// asked once, since a cast to a protocol costs a runtime conformance lookup per request.
    let transportSettlesOnItsOwnQueue: Bool

    /// The queue requests are prepared on; tests hold it to cancel a request before it starts.
    package var requestQueueForTesting: DispatchQueue { requestQueue }

    /// Creates an API client.
    /// - Parameters:
    ///   - responseParser: Decodes bodies, such as `JSONParser()`.
    ///   - transport: Sends requests. By default a new ``CurlTransport`` on Linux (or a
    ///     ``URLSessionTransport`` where libcurl cannot be loaded, which Osprey reports once on
    ///     standard error) and a new ``URLSessionTransport`` on Apple platforms.
    ///   - configuration: Default headers, timeouts, limits and validation.
    public init(
        responseParser: any ResponseParser,
        transport: (any HTTPTransport)? = nil,
        configuration: APIConfiguration = APIConfiguration()
    ) {
        self.responseParser = responseParser
        self.transport = transport ?? DefaultTransport.make()
        transportSettlesOnItsOwnQueue = self.transport is any SettlesOnItsOwnQueue
        settings = Locked(
            Settings(responseQueue: Self.makeDefaultResponseQueue(), configuration: configuration))
    }

    /// Where handlers of this API's promises run unless they name a queue: `.main` on Apple
    /// platforms (as in the original Osprey), a serial queue of the API's own on Linux, where
    /// nothing guarantees that the main queue is serviced.
    public var responseQueue: DispatchQueue {
        get { settings.withLock { $0.responseQueue } }
        set { settings.withLock { $0.responseQueue = newValue } }
    }

    /// Settings applied to every request; changes apply to requests started afterwards.
    public var configuration: APIConfiguration {
        get { settings.withLock { $0.configuration } }
        set { settings.withLock { $0.configuration = newValue } }
    }

    /// Runs before every request is built, after the parameters' own `preprocess()`, on the
    /// request queue. Throwing fails the request with ``APIError/preprocessingFailed(underlying:)``.
    open func preprocess(route: Route, parameters: (any RequestParameters)?) throws {}

    /// Decides whether a response is a success; by default, whether its status is in the
    /// configuration's `acceptableStatusCodes`.
    ///
    /// It gets the head's status and headers (``ResponseHead/httpResponse`` makes Foundation's
    /// `HTTPURLResponse` when you need one, at a cost, so the default never does).
    open func validate(_ response: ResponseHead, data: Data) -> Bool {
        configuration.acceptableStatusCodes.contains(response.statusCode)
    }

    /// Gives a chance to replace the error a request fails with (for example, to map a server
    /// error to a domain error). Returns `error` unchanged by default.
    open func mapError(_ error: APIError) -> any Error {
        error
    }

    private static func makeDefaultResponseQueue() -> DispatchQueue {
        #if canImport(Darwin)
            .main
        #else
            DispatchQueue(label: "osprey.api.response")
        #endif
    }
}
