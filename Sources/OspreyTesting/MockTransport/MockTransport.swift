import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An Osprey `HTTPTransport` that answers from routes in memory, for testing an API client
/// without a socket. Routing, requests and responses read like ``LoopbackServer``'s, so a test
/// can move between the two; every request still goes through the client's whole pipeline
/// (adapters, validation, parsing, retries, monitors).
///
/// ```swift
/// let mock = MockTransport()
/// mock.route("GET", "/users/:name/repos") { request in
///     .json(#"[{"name": "\#(request.pathParameters["name"]!)"}]"#)
/// }
/// let api = RepositoriesAPI(responseParser: JSONParser(), transport: mock)
/// let repositories = try await api.repositories(of: "osprey").value
/// #expect(mock.requests.first?.path == "/users/osprey/repos")
/// ```
///
/// A request no route matches fails with ``Unrouted``, which names it. Redirects are delivered
/// as they are (the mock follows none); the request's idle timeout applies to delayed and
/// `never` replies. Requests are checked like the real transports check them (an invalid method,
/// header or URL fails with `APIError.invalidRequest`), each ``requests`` entry has the absolute
/// ``LoopbackServer/Request/url`` the client used, and downloads (`api.download(...)`) are saved
/// to their file from a successful reply's body.
public final class MockTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `state` is the only mutable state and is locked; timers use their own queue.

    /// A request as the mock received it (the loopback server's type).
    public typealias Request = LoopbackServer.Request

    /// Makes the reply to a request.
    public typealias Handler = @Sendable (Request) throws -> Reply

    /// A request no route matches.
    public struct Unrouted: Error, Sendable, CustomStringConvertible {
        /// `GET /path?query`.
        public let request: String

        /// What went wrong, naming the request.
        public var description: String { "MockTransport has no route for \(request)" }
    }

    private struct State {
        var routes = RouteTable<Handler>()
        var requests: [Request] = []
    }

    private let state = Locked(State())
    private let timers = DispatchQueue(label: "osprey.mock.timers")
    /// Wakes the sessions of mocked WebSockets when the mock goes (made with the first).
    let webSocketSessions = Locked<SessionWake?>(nil)

    /// A mock with no routes.
    public init() {}

    deinit {
        webSocketSessions.withLock { $0 }?.wake()
    }

    /// Answers requests with `method` (nil for any) whose path matches `pattern` (`:name`
    /// captures a segment into `pathParameters`, a final `*rest` the rest); the newest route
    /// that matches wins.
    public func route(_ method: String?, _ pattern: String, handler: @escaping Handler) {
        state.withLock { $0.routes.add(method: method, pattern: pattern, handler: handler) }
    }

    /// Answers requests with any method whose path matches `pattern`.
    public func route(_ pattern: String, handler: @escaping Handler) {
        route(nil, pattern, handler: handler)
    }

    /// Answers with `replies` in turn, the last one for every later request: fail twice, then
    /// succeed.
    public func route(_ method: String?, _ pattern: String, replies: [Reply]) {
        let next = Locked(0)
        route(method, pattern) { _ in
            let index = next.withLock { index -> Int in
                defer { index += 1 }
                return index
            }
            return replies.isEmpty ? .status(404) : replies[min(index, replies.count - 1)]
        }
    }

    /// Every request received so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Answers `request` from the routes; see Osprey's `HTTPTransport`.
    public func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        let (promise, resolver) = Promise<TransportResponse>.pending()
        // The wire contract holds for mocks as for the real transports: a test sees the same error.
        do {
            try request.validate()
        } catch {
            resolver.reject(error)
            return promise
        }
        let recorded: Request
        do {
            recorded = try Self.record(request)
        } catch {
            resolver.reject(
                APIError.fileFailed(reason: "could not read the body file", underlying: error, context: nil))
            return promise
        }
        let route = state.withLock { state in
            state.requests.append(recorded)
            return state.routes.match(method: recorded.method, path: recorded.path)
        }
        let context = APIError.Context(request: request.urlRequest)
        guard let (handler, parameters) = route else {
            resolver.reject(
                APIError.transport(
                    underlying: Unrouted(request: "\(recorded.method) \(recorded.target)"), context: context))
            return promise
        }
        var routed = recorded
        routed.pathParameters = parameters
        let reply: Reply
        do {
            reply = try handler(routed)
        } catch {
            resolver.reject(APIError.transport(underlying: error, context: context))
            return promise
        }
        answer(request, with: reply, resolver: resolver)
        return promise
    }

    private func answer(_ request: TransportRequest, with reply: Reply, resolver: Resolver<TransportResponse>)
    {
        let context = APIError.Context(request: request.urlRequest)
        let settle: @Sendable () -> Void = { [timers] in
            switch reply.kind {
            case .response(let response):
                if let session = response.webSocketSession {
                    self.upgrade(request, with: response, session: session, resolver: resolver)
                } else {
                    resolver.resolve(Self.transportResponse(response, for: request))
                }
            case .pieces(let head, let pieces, let interval):
                Self.send(pieces, after: head, every: interval, for: request, on: timers, resolver: resolver)
            case .failure(let error):
                resolver.reject(error as? APIError ?? .transport(underlying: error, context: context))
            case .never:
                break
            }
        }
        let waits: TimeInterval? =
            if case .never = reply.kind { nil } else { reply.delay }
        if let idle = request.idleTimeout, waits.map({ $0 > idle }) ?? true {
            timers.asyncAfter(deadline: .now() + idle) {
                resolver.reject(APIError.timedOut(context: context))
            }
            return
        }
        if let waits, waits > 0 {
            timers.asyncAfter(deadline: .now() + waits, execute: settle)
        } else {
            timers.async(execute: settle)
        }
    }

    /// Sends a body in pieces: to the request's sink one by one (a stream), or joined.
    private static func send(
        _ pieces: [Data], after head: LoopbackServer.Response, every interval: TimeInterval,
        for request: TransportRequest, on timers: DispatchQueue, resolver: Resolver<TransportResponse>
    ) {
        let url = request.urlRequest.url ?? URL(string: "http://mock.invalid")!
        let fields = Dictionary(head.headers.map { ($0.name, $0.value) }) { first, _ in first }
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: head.status, httpVersion: "HTTP/1.1", headerFields: fields)
        else {
            resolver.reject(
                APIError.transport(
                    underlying: URLError(.badServerResponse), context: .init(request: request.urlRequest)))
            return
        }
        let whole = TransportResponse(
            response: response, data: pieces.reduce(Data(), +), request: request.urlRequest)
        guard let sink = request.downloadSink, (try? sink.begin(response)) == true else {
            resolver.fulfill(whole)
            return
        }
        @Sendable func deliver(_ index: Int) {
            guard resolver.isPending else { return sink.abandon() }
            guard index < pieces.count else {
                try? sink.end()
                resolver.fulfill(
                    TransportResponse(
                        response: response, data: Data(), request: request.urlRequest, bodyWentToSink: true))
                return
            }
            try? sink.write(pieces[index])
            timers.asyncAfter(deadline: .now() + interval) { deliver(index + 1) }
        }
        deliver(0)
    }

    /// The transport's form of a mocked response, with the size limit applied.
    private static func transportResponse(_ response: LoopbackServer.Response, for request: TransportRequest)
        -> Result<TransportResponse, any Error>
    {
        let url = request.urlRequest.url ?? URL(string: "http://mock.invalid")!
        var headers = Dictionary(response.headers.map { ($0.name, $0.value) }) { first, second in
            "\(first), \(second)"
        }
        headers["Content-Length"] = headers["Content-Length"] ?? String(response.body.count)
        let context = APIError.Context(request: request.urlRequest)
        guard
            let http = HTTPURLResponse(
                url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            return .failure(APIError.transport(underlying: URLError(.badServerResponse), context: context))
        }
        if let sink = request.downloadSink, (200..<300).contains(response.status) {
            return saveDownload(response.body, of: http, to: sink, for: request)
        }
        if let limit = request.maximumResponseBytes, response.body.count > limit {
            return .failure(APIError.responseTooLarge(limit: limit, context: context))
        }
        return .success(TransportResponse(response: http, data: response.body, request: request.urlRequest))
    }

    /// Hands a successful body to the download's sink as a transport does (begin, write, end;
    /// abandon on a failure), with its progress.
    private static func saveDownload(
        _ body: Data, of response: HTTPURLResponse, to sink: any DownloadSink, for request: TransportRequest
    ) -> Result<TransportResponse, any Error> {
        let context = APIError.Context(request: request.urlRequest, response: response)
        do {
            guard try sink.begin(response) else {
                return .success(
                    TransportResponse(response: response, data: body, request: request.urlRequest))
            }
        } catch {
            return .failure(error as? APIError ?? APIError.transport(underlying: error, context: context))
        }
        if let limit = sink.maximumBytes, Int64(body.count) > limit {
            sink.abandon()
            return .failure(APIError.responseTooLarge(limit: Int(clamping: limit), context: context))
        }
        do {
            try sink.write(body)
            try sink.end()
        } catch {
            sink.abandon()
            return .failure(
                APIError.fileFailed(
                    reason: "could not write the download", underlying: error, context: context))
        }
        let total = sink.startOffset + Int64(body.count)
        request.progress?(.download, total, total)
        return .success(
            TransportResponse(
                response: response, data: Data(), request: request.urlRequest, bodyWentToSink: true))
    }

    /// The request as the loopback server would have recorded it.
    private static func record(_ request: TransportRequest) throws -> Request {
        let url = request.urlRequest.url
        let path =
            url.map {
                $0.path.isEmpty
                    ? "/"
                    : URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? $0.path
            } ?? "/"
        let query = url.flatMap {
            URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        }
        let body =
            try request.bodyFileURL.map { try Data(contentsOf: $0) } ?? request.urlRequest.httpBody ?? Data()
        let headers = (request.urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            LoopbackServer.HeaderField($0.key, $0.value)
        }
        var recorded = Request(
            method: request.urlRequest.httpMethod ?? "GET",
            target: path.isEmpty ? "/" : path + (query.map { "?" + $0 } ?? ""),
            version: "HTTP/1.1",
            headers: headers,
            body: body,
            raw: Data(),
            bodyLength: body.count,
            connectionID: 0
        )
        recorded.absoluteURL = url
        return recorded
    }
}
