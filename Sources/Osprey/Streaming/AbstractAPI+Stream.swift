import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AbstractAPI {
    /// Sends a request and hands over its response's body as it arrives.
    ///
    /// ```swift
    /// let stream = api.stream(route: .get("https://api.example.com/logs/tail"))
    /// for try await line in stream.lines { print(line) }
    /// ```
    ///
    /// The request goes through the whole pipeline (preprocess, building, adapters, retries,
    /// redirects, monitors) up to the response head; then the body goes to the stream, never to
    /// memory whole. A status the API does not accept ends the stream with its ``APIError``.
    /// A retry happens only before the head was accepted.
    /// - Parameters:
    ///   - route: The method and URL.
    ///   - parameters: Query, headers, body; their `timeout` is the idle time allowed between
    ///     pieces. The request accepts anything (`Accept: */*`) unless these or the API's
    ///     headers name something: the parser's `Accept` is for whole responses.
    ///   - deadline: Seconds for the whole stream; none by default (the API's deadline does
    ///     not apply to streams).
    ///   - bufferSize: The most bytes that wait for the reader before the transfer pauses.
    /// - Returns: The stream, at once.
    public func stream(
        route: Route, parameters: (any RequestParameters)? = nil, deadline: TimeInterval? = nil,
        bufferSize: Int = 1 << 20
    ) -> ResponseStream {
        let buffer = StreamBuffer(capacity: bufferSize)
        let plan = StreamPlan(buffer: buffer) { [self] response in validate(response, data: Data()) }
        var configuration = configuration
        configuration.deadline = deadline
        // The parser's `Accept` (`application/json`) would ask an event stream or a log tail for
        // something else: a stream accepts what the call asks for (`events` asks for
        // `text/event-stream`), else anything.
        if !configuration.headers.contains("Accept") { configuration.headers["Accept"] = "*/*" }
        let completion: Promise<Void> = perform(
            route: route, parameters: parameters, body: plan, configuration: configuration
        ) { exchange, _ in
            // A transport that ignores sinks kept the body in memory: it goes over whole.
            if !exchange.bodyWentToSink { plan.deliverWhole(exchange) }
        }
        return ResponseStream(
            buffer: buffer, completion: completion, defaultQueue: responseQueue,
            decoder: (responseParser as? JSONParser)?.decoder)
    }
}

extension AbstractAPI {
    /// A reconnecting source of the server-sent events at `route` (the WHATWG `EventSource`):
    /// see ``ServerSentEvents`` for when it reconnects and when it stops. A request that is not
    /// idempotent (a `POST` that sends a prompt, say) is sent once: its source does not reconnect
    /// unless `reconnection` allows it (``ServerSentEvents/Reconnection/resendsNonIdempotentRequests``)
    /// or the request carries an `Idempotency-Key`.
    ///
    /// ```swift
    /// for try await event in api.events(route: api.get(endpoint: "/feed")) {
    ///     print(event.event, event.data)
    /// }
    /// ```
    /// - Parameters:
    ///   - route: The method and URL (usually a `GET`).
    ///   - parameters: Query and headers, sent with every connection (`Accept:
    ///     text/event-stream`, and `Last-Event-ID` once an event set one, are added).
    ///   - reconnection: When to reconnect.
    /// - Returns: The source, at once; nothing is sent until it is read.
    public func events(
        route: Route, parameters: (any RequestParameters)? = nil,
        reconnection: ServerSentEvents.Reconnection = ServerSentEvents.Reconnection()
    ) -> ServerSentEvents {
        let reopens =
            reconnection.resendsNonIdempotentRequests
            || HTTPMethod.idempotentNames.contains(route.method.rawValue.uppercased())
            || parameters?.headers.contains("Idempotency-Key") == true
            || configuration.headers.contains("Idempotency-Key")
        return ServerSentEvents(
            reconnection: reconnection, defaultQueue: responseQueue, api: self, reopens: reopens
        ) { [self] lastEventID in
            var headers: HTTPHeaders = ["Accept": "text/event-stream", "Cache-Control": "no-cache"]
            if let lastEventID { headers["Last-Event-ID"] = lastEventID }
            return stream(route: route, parameters: EventStreamParameters(parameters, headers: headers))
        }
    }
}

/// A request's parameters with the headers an event source adds to every connection.
private struct EventStreamParameters: RequestParameters {
    let base: (any RequestParameters)?
    let added: HTTPHeaders

    init(_ base: (any RequestParameters)?, headers: HTTPHeaders) {
        self.base = base
        added = headers
    }

    var headers: HTTPHeaders { (base?.headers ?? [:]).merging(added) }
    var timeout: TimeInterval? { base?.timeout }
    func preprocess() throws { try base?.preprocess() }
    func encode(into draft: inout RequestDraft) throws {
        try base?.encode(into: &draft)
    }
}
