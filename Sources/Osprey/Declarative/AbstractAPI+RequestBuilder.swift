import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Requests described by a `RequestBuilder`, as `@API` code sends them. They go through the same
// pipeline as routes: the builder is turned into a `URLRequest` on the request queue (the
// provider's modifiers run there), then adapters, transport, validation, parsing and retries.

extension AbstractAPI {
    /// Sends `builder`'s request and decodes the body as `T` (with the builder's decoder when it
    /// has one, else the API's parser).
    @_disfavoredOverload
    @_documentation(visibility: internal)
    public func _request<T: Decodable & Sendable>(_ builder: RequestBuilder) -> Promise<T> {
        send(builder) { exchange, parser in
            try builder.decode(T.self, from: exchange, parser: parser)
        }
    }

    /// Sends `builder`'s request: nil for 204, 205 or an empty body (or `null`), else the body
    /// decoded as `T`.
    @_documentation(visibility: internal)
    public func _request<T: Decodable & Sendable>(_ builder: RequestBuilder) -> Promise<T?> {
        send(builder) { exchange, parser in
            if Self.hasNoBody(exchange) { return nil }
            return try builder.decode(T?.self, from: exchange, parser: parser)
        }
    }

    /// Sends `builder`'s request; the body does not matter.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<Void> {
        send(builder) { _, _ in }
    }

    /// Sends `builder`'s request and returns the raw body, which must not be empty (as in
    /// Papyrus: ask for `Data?` when it may be).
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<Data> {
        send(builder) { exchange, _ in
            guard !exchange.data.isEmpty else { throw EmptyBodyError() }
            return exchange.data
        }
    }

    /// Sends `builder`'s request and returns the raw body, or nil when it is empty.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<Data?> {
        send(builder) { exchange, _ in
            exchange.data.isEmpty ? nil : exchange.data
        }
    }

    /// Sends `builder`'s request and returns the body as text, in the charset the response
    /// names (UTF-8 when it names none).
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<String> {
        send(builder) { exchange, _ in
            try Self.text(of: exchange)
        }
    }

    /// Sends `builder`'s request and returns the body as text, or nil when it is empty.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<String?> {
        send(builder) { exchange, _ in
            exchange.data.isEmpty ? nil : try Self.text(of: exchange)
        }
    }

    /// Sends `builder`'s request and returns the response: status, headers, body.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<Response> {
        send(builder) { exchange, _ in
            Response(exchange)
        }
    }

    /// Sends `builder`'s request and returns the raw body with the response.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<(Data, Response)> {
        send(builder) { exchange, _ in
            (exchange.data, Response(exchange))
        }
    }

    /// Sends `builder`'s request and returns the body as text with the response.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<(String, Response)> {
        send(builder) { exchange, _ in
            (try Self.text(of: exchange), Response(exchange))
        }
    }

    /// Opens a WebSocket with `builder`'s request as its opening handshake (always a `GET`; a
    /// body is not sent), with the default ``WebSocketOptions``.
    @_documentation(visibility: internal)
    public func _request(_ builder: RequestBuilder) -> Promise<WebSocket> {
        openWebSocket(
            route: builder.route.upgradingScheme(), parameters: HandshakeBuilderParameters(builder: builder),
            options: WebSocketOptions())
    }

    /// Sends `builder`'s request and returns the decoded body with the response.
    @_documentation(visibility: internal)
    public func _request<T: Decodable & Sendable>(_ builder: RequestBuilder) -> Promise<(T, Response)> {
        send(builder) { exchange, parser in
            (try builder.decode(T.self, from: exchange, parser: parser), Response(exchange))
        }
    }
}

extension AbstractAPI {
    /// The pipeline for a builder: its route, and the builder as the parameters that write the
    /// final request.
    private func send<Value: Sendable>(
        _ builder: RequestBuilder,
        decode: @escaping @Sendable (TransportResponse, any ResponseParser) throws -> Value
    ) -> Promise<Value> {
        perform(route: builder.route, parameters: BuilderParameters(builder: builder), decode: decode)
    }
}

extension RequestBuilder {
    /// The route the pipeline and its hooks see: the method and the path before modifiers run
    /// (the final URL is made when the request is built), kept to the base URL's origin.
    var route: Route {
        Route(method: method, url: Endpoint(verbatim: joinURL(baseURL, path)), baseURL: baseURL)
    }

    func decode<T: Decodable>(_ type: T.Type, from exchange: TransportResponse, parser: any ResponseParser)
        throws
        -> T
    {
        if let responseDecoder { return try responseDecoder.decode(T.self, from: exchange.data) }
        return try exchange.decoded(by: parser)
    }
}

/// A `Data` result was asked for and the body was empty.
public struct EmptyBodyError: Error, Sendable, CustomStringConvertible {
    /// An error.
    public init() {}

    /// What went wrong.
    public var description: String { "the response has an empty body; ask for Data? when it may have none" }
}

/// A builder as the pipeline's parameters: the provider's modifiers run, then the builder writes
/// the method, URL, query, headers and body.
struct BuilderParameters: RequestParameters {
    let builder: RequestBuilder

    var headers: HTTPHeaders { [:] }

    func encode(into draft: inout RequestDraft) throws {
        var builder = builder
        do {
            for modifier in builder.modifiers { try modifier.modify(req: &builder) }
        } catch {
            throw error as? APIError ?? .preprocessingFailed(underlying: error)
        }
        try builder.encode(into: &draft)
    }
}

/// A builder as the parameters of a WebSocket's opening handshake: written as any builder is,
/// then made a `GET` to the `http`/`https` URL that a `ws`/`wss` one stands for.
struct HandshakeBuilderParameters: RequestParameters {
    let builder: RequestBuilder

    var headers: HTTPHeaders { [:] }

    func encode(into draft: inout RequestDraft) throws {
        try BuilderParameters(builder: builder).encode(into: &draft)
        draft.method = .get
        draft.url = Route.httpURL(draft.url)
    }
}
