#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// The end of a hop: its answer delivered, a redirect followed, a second try on a new
    /// connection, or the transfer failed.
    extension CurlTransfer {
        /// The hop's answer is complete (the handle is out of the multi handle): deliver, follow
        /// a redirect, or fail.
        func finish(result: Int32, in multi: OpaquePointer) {
            if let failure { return fail(failure) }
            // An overrun that came after the length went out still fails: the body was not what it said.
            if let overrun = bodyReader?.overrun {
                return fail(.transport(underlying: overrun, context: context))
            }
            guard result == 0 else {
                guard tryAgainOnFreshConnection(after: result) else { return fail(transportError(result)) }
                onFreshConnection = true
                return startNextHop(in: multi)
            }
            guard let head else {
                return fail(.transport(underlying: URLError(.badServerResponse), context: context))
            }
            let metrics = measure(redirects: redirects)
            if let length = bodyLength, bodyBytes < length {
                return fail(.transport(underlying: URLError(.networkConnectionLost), context: context))
            }
            if sinking, flowSink != nil, let response {
                // A stream's buffer holds every piece already; its end comes from the outcome.
                sinkBegun = false
                let delivered = TransportResponse(
                    response: response, data: data, request: request, bodyWentToSink: true
                ).measured(metrics, after: hops)
                dispose()
                return settle(.success(delivered))
            }
            if sinking, let writer, let response {
                // A body on disk is delivered once the writer has written it all and ended the sink.
                sinkBegun = false
                let delivered = TransportResponse(
                    response: response, data: data, request: request, bodyWentToSink: true
                ).measured(metrics, after: hops)
                let context = context
                dispose()
                writer.finish { [self] error in
                    if let error {
                        settle(
                            .failure(
                                .fileFailed(
                                    reason: "could not finish the download", underlying: error,
                                    context: context)
                            ))
                    } else {
                        settle(.success(delivered))
                    }
                }
                return
            }
            guard case .follow(let limit) = original.redirectPolicy, followsThisHop, let response else {
                return deliver(head, metrics: metrics)
            }
            switch RedirectRules.decide(
                after: response, to: request, original: original.urlRequest,
                sensitiveHeaders: original.sensitiveHeaders)
            {
            case .deliver:
                deliver(head, metrics: metrics)
            case .refuse(let reason):
                fail(.redirectRefused(reason: reason, context: context))
            case .follow(let next, _):
                guard redirects < limit else {
                    return fail(.redirectRefused(reason: "more than \(limit) redirects", context: context))
                }
                if let reason = socketRefusal(for: next) {
                    return fail(.redirectRefused(reason: reason, context: context))
                }
                redirects += 1
                hops.append(TransportResponse(hop: .made(response), request: request))
                request = next
                startNextHop(in: multi)
            }
        }

        /// Why a redirect to `next` may not go to a Unix domain socket: a hop reaches a socket only
        /// if the chain started on that socket's host. Any server could otherwise send a request,
        /// its body and the caller's headers to a local daemon (a `307` to `http://docker/...`).
        private func socketRefusal(for next: URLRequest) -> String? {
            guard let host = next.url?.host?.lowercased(), settings.unixSockets[host] != nil,
                original.urlRequest.url?.host?.lowercased() != host
            else { return nil }
            return "a redirect into the Unix domain socket of host \(host) from another host"
        }

        /// Sends ``request`` again on the same handle, reset: a redirect's next hop, or a second try.
        func startNextHop(in multi: OpaquePointer) {
            release()
            ccurl_easy_reset(handle)
            if attach(to: multi) { loop?.adopt(self) }
        }

        /// Whether a hop that failed with `code` is sent again, once, on a new connection: it went
        /// out on a kept-alive connection that turned out to be closed (libcurl 7.88 retries such a
        /// request itself over HTTP/1.1, but over HTTP/2 it reports "stream not closed cleanly"),
        /// nothing of a response came back, and the method is idempotent, so sending it again
        /// cannot do anything twice.
        private func tryAgainOnFreshConnection(after code: Int32) -> Bool {
            // CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR.
            guard !onFreshConnection, [18, 52, 55, 56].contains(code), headReader.status == nil,
                bodyBytes == 0,
                HTTPMethod.idempotentNames.contains(request.httpMethod ?? "GET")
            else { return false }
            // No connection was made for this hop: it went out on a reused one.
            var connects = 0
            return ccurl_easy_getinfo_long(handle, Int32(CCURLINFO_NUM_CONNECTS), &connects) == 0
                && connects == 0
        }
    }
#endif
