import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets over URLSession's WebSocket task (Apple platforms): the task frames the messages
/// and ``MessageTaskConnection`` runs the socket's protocol over it.
extension URLSessionTransport: UpgradingTransport {
    package var supportsUpgrades: Bool { socketTasks != nil }
    package var framesMessages: Bool { true }

    /// Opens a WebSocket task for `request` (see ``SocketExchange``).
    func openSocket(_ request: TransportRequest, sink: any UpgradeSink, resolver: Resolver<TransportResponse>)
    {
        guard let socketTasks else {
            resolver.reject(
                WebSocketError.unsupportedTransport(
                    reason: "URLSession has no WebSocket tasks here; use CurlTransport on Linux"))
            return
        }
        let session = self.session
        let limit = sink.messageLimit
        let made = SocketExchange(
            request, sink: sink, resolver: resolver, cookies: cookies, timers: timers,
            registry: delegate.sockets,
            makeTask: { hop in socketTasks(session, hop, limit) })
        resolver.onCancel { [self] in withExtendedLifetime(self) { made.cancel() } }
        // Making a task waits for FoundationNetworking's work queue: never on the caller's thread.
        control.async { made.start() }
    }

    /// The session delegate's WebSocket openings, for tests that play the task's side.
    var socketRegistry: SocketRegistry { delegate.sockets }
}
