import Foundation
import Osprey

/// A piece of the assistant's answer, as each event's data carries it: `{"text": "Osp"}`.
struct Token: Codable, Sendable, Equatable {
    var text: String
}

/// Who is typing in a room, as the presence feed reports it.
struct Presence: Codable, Sendable, Equatable {
    var typing: [String]
}

/// A post in a room's live feed.
struct Post: Codable, Sendable, Equatable {
    var author: String
    var text: String
}

/// The chat service's API: answers streamed as server-sent events, a presence feed that
/// reconnects, and a room's live feed over a WebSocket.
final class ChatAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    // @unchecked: `baseURL` never changes; the rest is AbstractAPI's, which locks its state.

    /// Where the service is.
    let baseURL: String

    /// A client of the service at `baseURL`.
    init(baseURL: String) {
        self.baseURL = baseURL
        super.init(responseParser: JSONParser())
    }

    /// The assistant's answer to `prompt`, as it is written: one `token` event per piece of
    /// text, then `data: [DONE]`, as model APIs send. A `POST` is never sent twice: the source
    /// does not reconnect, it ends with its connection.
    func answer(to prompt: String) -> ServerSentEvents {
        events(route: post(endpoint: "/chat"), parameters: JSONParameters(["prompt": prompt]))
    }

    /// The presence feed of `room`: reconnects when the connection drops, resuming after the
    /// last event seen, until the server ends it with a `204`.
    func presence(in room: Int) -> DecodedEvents<Presence> {
        events(route: get(endpoint: "/rooms/\(room)/presence")).values(of: Presence.self)
    }

    /// The live feed of `room`: a WebSocket on which each text sent is posted, and every post
    /// arrives as JSON. (`CurlTransport` opens WebSockets on Linux, `URLSessionTransport` on Apple
    /// platforms.)
    func live(in room: Int) -> Promise<WebSocket> {
        webSocket(route: get(endpoint: "/rooms/\(room)/live"))
    }
}
