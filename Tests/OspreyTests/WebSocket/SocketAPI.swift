#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// The API the WebSocket suites open sockets with: a base URL (`ws`, `wss`, `http` or
    /// `https`) on a transport, answering on a queue of its own.
    final class SocketAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init(baseURL: String, transport: any HTTPTransport) {
            self.baseURL = baseURL
            super.init(responseParser: JSONParser(), transport: transport)
            responseQueue = DispatchQueue(label: "websocket.response")
        }

        /// On a libcurl transport of its own, with one loop.
        convenience init(baseURL: String) throws {
            // Unwrapped apart: inside the call, #require would bind to the inherited `transport`.
            let curl = try #require(CurlTransport(loops: 1))
            self.init(baseURL: baseURL, transport: curl)
        }

        /// To the loopback server `server`, on a libcurl transport of its own.
        convenience init(server: LoopbackServer) throws {
            try self.init(baseURL: "ws://127.0.0.1:\(server.port)")
        }
    }
#endif
