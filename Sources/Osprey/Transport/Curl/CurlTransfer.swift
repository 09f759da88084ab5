#if canImport(CCurl)
    internal import CCurl
    import Foundation
    import Promises

    /// One request through ``CurlTransport``, hop by hop (Osprey follows redirects itself): its
    /// easy handle, the response as it arrives, its timers, and the resolver it settles once.
    ///
    /// Everything but ``init`` and the resolver runs with the loop's lock held: on the loop's
    /// thread, where libcurl calls the callbacks and the loop the rest, or on the thread that
    /// starts the transfer while its loop waits (``CurlLoop``). The resolver settles on
    /// the transport's delivery queue, never on the loop, so that no work done by whoever waits
    /// for the response (parsing a small body, say) can hold up the other transfers.
    final class CurlTransfer: @unchecked Sendable {
        // @unchecked: mutable state is only used with the loop's lock held (see above).
        let handle: OpaquePointer
        let original: TransportRequest
        private let resolver: Resolver<TransportResponse>
        private let delivery: DispatchQueue
        private(set) weak var loop: CurlLoop?
        /// The transport's options.
        let settings: Settings
        /// The origin whose HTTP version the loop group learns when this transfer ends (see
        /// ``LoopPlacement``); nil when there is nothing to learn. Set before the loop has it.
        var placementOrigin: String?

        /// A ``CurlTransport``'s options, which every transfer applies.
        struct Settings: Sendable {
            /// See ``CurlTransport/init(trustedCertificates:)``.
            var trustedCertificates: URL?
            var proxies = ProxySettings()
            /// See ``CurlTransport/init(trustedCertificates:maximumConnectionsPerHost:cookies:)``.
            var cookies: CookieJar?
            /// Host names (lower case) whose requests go to a Unix domain socket, by socket path.
            var unixSockets: [String: String] = [:]
            /// Client certificate, pins, minimum version.
            var tls = TLSOptions()
            /// Which HTTP versions may be spoken.
            var httpVersion = HTTPVersionPolicy.http2WhenOffered
            /// How many seconds a connection may rest in a loop's pool and still be reused; nil
            /// for ``CurlTransport/idleConnectionAge``.
            var idleConnectionAge: Int?
        }

        var request: URLRequest
        var redirects = 0
        /// The heads of the redirects followed, for the response's ``TransportResponse/redirects``.
        var hops: [TransportResponse] = []
        /// Whether the current hop is a second try on a new connection (see ``complete(in:result:)``).
        var onFreshConnection = false
        var headerList: OpaquePointer?
        var requestBody: UnsafeMutableRawBufferPointer?
        var bodyFile: UnsafeMutablePointer<FILE>?
        /// Reads a streamed body ahead of libcurl.
        var bodyReader: BodyStreamReader?

        // The response of the current hop.
        var headReader = ResponseHeadReader()
        /// The final head, once it has fully arrived.
        var head: CurlResponseHead?
        /// Whether the head is a redirect Osprey will follow (its body is not the answer).
        var followsThisHop = false
        /// The head made into a response, once the loop needed it (see ``response``).
        var madeResponse: HTTPURLResponse?
        var bodyLength: Int64?
        /// The body held in memory (large ones in reusable blocks, see ``BodyBufferPool``).
        var body = BodyBuffer()
        /// A copy of the body so far, for an error's context.
        var data: Data { body.snapshot }
        /// Body bytes of this hop, in memory or written to the download sink.
        var bodyBytes: Int64 = 0
        /// Whether this hop's body goes to the download sink, and whether the sink was begun (and
        /// so must be ended or abandoned).
        var sinking = false
        var sinkBegun = false
        /// Writes a sinking body to disk off the loop.
        var writer: CurlDiskWriter?
        /// Takes a sinking body on the loop, or pauses the transfer (a stream).
        var flowSink: (any FlowControlledSink)?
        /// Whether the transfer is paused until its reader or its disk catches up.
        var pausedForReader = false
        /// libcurl's own words on a failure (CURL_ERROR_SIZE bytes), kept for as long as the handle.
        let errorBuffer: UnsafeMutablePointer<CChar> = {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
            buffer.initialize(repeating: 0, count: 256)
            return buffer
        }()
        /// Set by a callback that stopped the transfer (the size limit, a framing error): what it
        /// ends with, whatever libcurl reports.
        var failure: APIError?
        /// An upgrade's opening, once libcurl made its connection (see ``CurlHandshake``).
        var handshake: CurlHandshake?
        /// The sink of a request that asks for an upgrade (a WebSocket's opening).
        let upgradeSink: (any UpgradeSink)?
        /// The transport, held by an upgrade only: its connection keeps it alive (see
        /// ``CurlChannel``).
        var transport: CurlTransport?

        // Timers, in uptime nanoseconds.
        let started = DispatchTime.now().uptimeNanoseconds
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        var movedBytes: Int64 = 0

        init?(
            _ request: TransportRequest, resolver: Resolver<TransportResponse>, delivery: DispatchQueue,
            loop: CurlLoop, settings: Settings = Settings()
        ) {
            guard let handle = loop.takeHandle() else { return nil }
            self.settings = settings
            self.handle = handle
            original = request
            upgradeSink = request.downloadSink as? any UpgradeSink
            self.request = request.urlRequest
            self.resolver = resolver
            self.delivery = delivery
            self.loop = loop
        }

        /// Whether the handle was cleaned up (on the loop, when the transfer ended).
        private var disposed = false

        deinit {
            body.reset()
            // Only a transfer that never reached the loop gets here with its handle.
            if !disposed {
                release()
                if let loop { loop.recycle(handle) } else { ccurl_easy_cleanup(handle) }
            }
            errorBuffer.deallocate()
        }

        // MARK: Starting and ending (on the loop)

        /// Configures the handle for the current hop and adds it; false (the resolver failed) when
        /// the request cannot be sent.
        func attach(to multi: OpaquePointer) -> Bool {
            do {
                try configure()
            } catch {
                settle(
                    .failure(
                        error as? APIError ?? .transport(underlying: error, context: .init(request: request)))
                )
                dispose()
                return false
            }
            guard ccurl_multi_add_handle(multi, handle) == 0 else {
                settle(.failure(.transport(underlying: URLError(.unknown), context: .init(request: request))))
                dispose()
                return false
            }
            return true
        }

        /// Fails a transfer that never reached its loop's multi handle (the loop had stopped).
        func reject(_ error: any Error) {
            settle(.failure(.transport(underlying: error, context: .init(request: request))))
            dispose()
        }

        /// Takes the handle out (which closes its connection if the transfer was not finished) and
        /// fails with the error made from the current context.
        func detach(from multi: OpaquePointer, failing makeError: CurlLoop.APIErrorMaker) {
            // The poller stops watching a handshake's socket before libcurl closes it.
            if let handshake { loop?.forgetChannel(handshake.socket) }
            ccurl_multi_remove_handle(multi, handle)
            fail(makeError(context))
        }

        /// The current hop's response, made from its head the first time the loop needs it: for
        /// an error's context, a redirect, a download. A plain answer is made on the delivery
        /// queue instead (see ``CurlResponseHead``).
        var response: HTTPURLResponse? {
            if madeResponse == nil { madeResponse = head?.makeResponse() }
            return madeResponse
        }

        /// libcurl finished the hop: deliver, follow a redirect, or fail.
        func complete(in multi: OpaquePointer, result: Int32) {
            // An upgrade's connection is made: the loop writes the request and reads the answer
            // on it, keeping the handle in the multi handle (libcurl forgets a CONNECT_ONLY
            // connection whose handle leaves it).
            if upgradeSink != nil, handshake == nil, result == 0 { return beginHandshake(in: multi) }
            ccurl_multi_remove_handle(multi, handle)
            finish(result: result, in: multi)
        }

        /// Undoes a pause (the consumer caught up).
        func unpause() {
            pausedForReader = false
            lastActivity = DispatchTime.now().uptimeNanoseconds
            ccurl_easy_pause(handle, Int32(CCURLPAUSE_CONT))
        }

        /// Fails the transfer. A download's partial file gets the bytes still on their way to
        /// disk first: a `download` started as soon as this one fails resumes from all of them.
        func fail(_ error: APIError) {
            if sinkBegun, let writer {
                sinkBegun = false
                writer.abandon { [self] in settle(.failure(error)) }
            } else {
                settle(.failure(error))
            }
            dispose()
        }

        /// Delivers the hop's response and body on the delivery queue,
        /// off the loop, unless the loop made it already.
        func deliver(_ head: CurlResponseHead, metrics: RequestMetrics?) {
            let (made, data, request, sinking, resolver, hops) = (
                madeResponse, body.take(), request, sinking, resolver, hops
            )
            let fulfill: @Sendable () -> Void = {
                // A response the loop already made is kept; else only the parts go out, and an
                // `HTTPURLResponse` is made if someone asks for it.
                let response =
                    made.map {
                        TransportResponse(response: $0, data: data, request: request, bodyWentToSink: sinking)
                    }
                    ?? TransportResponse(
                        url: head.url, statusCode: head.statusCode, httpVersion: head.version,
                        headers: head.headers, data: data, request: request, bodyWentToSink: sinking)
                resolver.fulfill(response.measured(metrics, after: hops))
            }
            // The handle goes back first: work done where the promise settles may start the next
            // transfer, which can take it.
            dispose()
            if original.settlesOnTransportThread { fulfill() } else { delivery.async(execute: fulfill) }
        }

        /// The transfer ended: its handle goes back to the loop here and is never used by this
        /// transfer again; a download that did not end well leaves its partial file to the sink.
        func dispose() {
            if sinkBegun {
                sinkBegun = false
                if let writer { writer.abandon() } else { original.downloadSink?.abandon() }
            }
            release()
            guard !disposed else { return }
            disposed = true
            // Reset and kept for a later transfer (which may take it at once, from any thread):
            // this transfer never touches it again.
            if let loop { loop.recycle(handle) } else { ccurl_easy_cleanup(handle) }
        }

        /// The handle now belongs to an upgraded connection, which closes and recycles it: this
        /// transfer never touches it again.
        func handOffHandle() {
            disposed = true
        }

        /// Settles the promise on the delivery queue, or right here when the API completes on
        /// the transport's thread (the loop, or the disk writer's queue after a download).
        func settle(_ outcome: Result<TransportResponse, APIError>) {
            let resolver = resolver
            let settle: @Sendable () -> Void = {
                switch outcome {
                case .success(let response): resolver.fulfill(response)
                case .failure(let error): resolver.reject(error)
                }
            }
            if original.settlesOnTransportThread { settle() } else { delivery.async(execute: settle) }
        }

        var context: APIError.Context {
            APIError.Context(request: request, response: response, data: data)
        }

        func transportError(_ code: Int32) -> APIError {
            let urlCode: URLError.Code =
                switch code {
                case 6: .cannotFindHost  // CURLE_COULDNT_RESOLVE_HOST
                case 7: .cannotConnectToHost  // CURLE_COULDNT_CONNECT
                case 28: .timedOut  // CURLE_OPERATION_TIMEDOUT
                case 35, 58, 59, 60, 77, 80, 83, 90, 91: .secureConnectionFailed  // TLS, 90: pin
                case 52: .zeroByteResource  // CURLE_GOT_NOTHING
                case 18, 55, 56: .networkConnectionLost  // partial file, send, receive errors
                default: .badServerResponse
                }
            // CURLE_SSL_PINNEDPUBKEYNOTMATCH: said plainly, whatever libcurl's buffer holds.
            let details =
                code == 90
                ? "the server's public key matches none of the pinned keys" : String(cString: errorBuffer)
            let description =
                "libcurl: \(CurlLibrary.describe(code)) (\(code))" + (details.isEmpty ? "" : ": \(details)")
            return .transport(
                underlying: URLError(urlCode, userInfo: [NSLocalizedDescriptionKey: description]),
                context: context)
        }

        /// Frees what the current hop's handle points at.
        func release() {
            if let headerList { ccurl_slist_free_all(headerList) }
            headerList = nil
            requestBody?.deallocate()
            requestBody = nil
            if let bodyFile { fclose(bodyFile) }
            bodyFile = nil
            bodyReader?.cancel()
            bodyReader = nil
        }
    }
#endif
