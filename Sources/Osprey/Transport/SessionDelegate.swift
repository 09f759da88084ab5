import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's delegate: forwards each event to the task's exchange, and keeps URLSession
/// from doing the things Osprey does itself (following redirects, answering challenges).
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionWebSocketDelegate, Sendable {
    let registry = TaskRegistry()
    /// WebSocket openings (``SocketExchange``), by task.
    let sockets = SocketRegistry()
    /// The pins and the client identity (Apple platforms; elsewhere the transport refuses
    /// options it cannot apply before a task exists).
    let tls: TLSOptions

    init(tls: TLSOptions) {
        self.tls = tls
        super.init()
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse {
            registry.exchange(for: dataTask)?.received(response)
        }
        completionHandler(.allow)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        // A long upload is progress too: without this the idle timeout would count from the
        // start of the upload to the first byte of the response.
        registry.exchange(for: task)?.sentBodyData(total: totalBytesSent, expected: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        registry.exchange(for: dataTask)?.received(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Never let URLSession follow: on Linux it forwards credentials across origins and
        // drops 307/308 bodies. The exchange follows the redirect itself.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // Osprey authenticates with explicit headers. Answering a server challenge can hang
            // (Basic, Linux <= 6.3.1) or crash (Digest) in FoundationNetworking: decline it and
            // deliver the 401 instead (the exchange knows the cancellation was ours).
            registry.exchange(for: task)?.challengeWasCancelled()
            completionHandler(.cancelAuthenticationChallenge, nil)
        #else
            switch challenge.protectionSpace.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust
            where !PublicKeyPin.normalized(tls.pinnedPublicKeys).isEmpty:
                // The system's evaluation first, then the pins, on the server's own certificate
                // (as libcurl checks them).
                if let trust = challenge.protectionSpace.serverTrust,
                    ServerTrust.passes(trust, pins: tls.pinnedPublicKeys)
                {
                    completionHandler(.useCredential, URLCredential(trust: trust))
                } else {
                    // Fail the exchange (or the WebSocket's opening) with what happened before the
                    // cancellation reaches it as a plain "cancelled": no request byte has been sent.
                    let refusal = URLError(
                        .secureConnectionFailed,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "the server's public key matches none of the pinned keys"
                        ])
                    registry.exchange(for: task)?.fail { context in
                        .transport(underlying: refusal, context: context)
                    }
                    sockets.failed(task.taskIdentifier, underlying: refusal)
                    completionHandler(.cancelAuthenticationChallenge, nil)
                }
            case NSURLAuthenticationMethodClientCertificate:
                guard let identity = tls.clientIdentity else {
                    // None configured: go on without one (the server decides).
                    completionHandler(.performDefaultHandling, nil)
                    return
                }
                completionHandler(
                    .useCredential,
                    URLCredential(
                        identity: identity.identity, certificates: identity.intermediates,
                        persistence: .forSession))
            default:
                // As if this method were not implemented. Server trust is evaluated by the
                // system; a 401 challenge (Basic, Digest, NTLM, Negotiate) finds no stored
                // credential and the 401 is delivered; an optional client certificate is
                // skipped. Cancelling here would cancel the task instead.
                completionHandler(.performDefaultHandling, nil)
            }
        #endif
    }

    #if !canImport(FoundationNetworking)
        // Apple platforms only: FoundationNetworking never collects metrics (the exchange measures
        // what it can itself).
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
        ) {
            registry.exchange(for: task)?.collected(metrics, of: task)
        }
    #endif

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if sockets.completed(task.taskIdentifier, error: error) { return }
        registry.remove(task)?.completed(task, error: error, session: session, registry: registry)
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
    ) {
        sockets.opened(webSocketTask.taskIdentifier, subprotocol: `protocol`)
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        // The socket learns of the close when the task's reading fails (the task keeps the code).
    }
}
