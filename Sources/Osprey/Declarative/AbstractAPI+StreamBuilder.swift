import Foundation
import Promises

// Streams described by a `RequestBuilder`, as `@API` code asks for them: the same pipeline as
// `stream(route:)` and `events(route:)`, the builder writing the request.

extension AbstractAPI {
    /// Sends `builder`'s request and hands over its body as it arrives (see
    /// ``stream(route:parameters:deadline:bufferSize:)``).
    @_documentation(visibility: internal)
    public func _stream(_ builder: RequestBuilder) -> ResponseStream {
        stream(route: builder.route, parameters: BuilderParameters(builder: builder))
    }

    /// A reconnecting source of the server-sent events `builder`'s request answers with (see
    /// ``events(route:parameters:reconnection:)``).
    @_documentation(visibility: internal)
    public func _events(_ builder: RequestBuilder) -> ServerSentEvents {
        events(route: builder.route, parameters: BuilderParameters(builder: builder))
    }

    /// The server-sent events `builder`'s request answers with, each event's data decoded as
    /// `Value` (with the builder's decoder when it has one, else the API's parser).
    @_documentation(visibility: internal)
    public func _decodedEvents<Value: Decodable & Sendable>(_ builder: RequestBuilder) -> DecodedEvents<Value>
    {
        _events(builder).values(of: Value.self, decoder: builder.responseDecoder)
    }
}
