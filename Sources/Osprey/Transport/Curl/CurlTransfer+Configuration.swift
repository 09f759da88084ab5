#if canImport(CCurl)
    internal import CCurl
    import Foundation

    extension CurlTransfer {
        /// libcurl's version setting for `choice`: HTTP/2 is offered over TLS (ALPN) unless HTTP/1.1
        /// is asked for, and spoken over plain http only with prior knowledge.
        static func curlVersion(_ choice: HTTPVersionPolicy, isSecure: Bool) -> Int {
            switch choice {
            case .http1Only: CCURL_HTTP_VERSION_1_1
            case .http2WhenOffered: isSecure ? CCURL_HTTP_VERSION_2TLS : CCURL_HTTP_VERSION_1_1
            case .http2PriorKnowledge:
                isSecure ? CCURL_HTTP_VERSION_2TLS : CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
            }
        }

        /// Sets the handle up for the current hop: URL, method, headers, body, callbacks. libcurl
        /// follows no redirect and decodes gzip and deflate (the size limit counts decoded bytes).
        func configure() throws {
            // Read once: on Linux each read of `URLRequest.url` copies it out of an NSURLRequest.
            guard let requestURL = request.url else {
                throw APIError.invalidRequest(reason: "no URL")
            }
            let url = requestURL.absoluteString
            let context = Unmanaged.passUnretained(self).toOpaque()
            try set(CCURLOPT_URL, string: url)
            try set(CCURLOPT_NOSIGNAL, 1)
            try set(CCURLOPT_FOLLOWLOCATION, 0)
            try allowOnlyHTTP()
            if onFreshConnection { try set(CCURLOPT_FRESH_CONNECT, 1) }
            // libcurl reads it from the transfer that looks for a connection to reuse.
            try set(
                CCURLOPT_MAXAGE_CONN,
                settings.idleConnectionAge ?? CurlTransport.idleConnectionAge.withLock { $0 })
            let isSecure = HTTPHeaders.same(String(url.prefix(6)), "https:")
            // An upgrade is HTTP/1.1's: HTTP/2 has no `101` (RFC 9113 §8.6).
            let version =
                upgradeSink != nil
                ? CCURL_HTTP_VERSION_1_1 : Self.curlVersion(settings.httpVersion, isSecure: isSecure)
            try set(CCURLOPT_HTTP_VERSION, version)
            // Where HTTP/2 may be spoken, wait for a connection being set up rather than open
            // another: it may turn out to be HTTP/2, which carries every request to its host at once.
            if version != CCURL_HTTP_VERSION_1_1 && CurlLibrary.supportsHTTP2 {
                try set(CCURLOPT_PIPEWAIT, 1)
            }
            try set(CCURLOPT_ACCEPT_ENCODING, string: "")
            // Fewer, larger reads than libcurl's 16 KiB while bodies are large (see
            // `ReadBufferSizing`). Best effort: libcurl 7.88 refuses a new size
            // (CURLE_BAD_FUNCTION_ARGUMENT) while the handle still holds a buffer, as one reused
            // after an HTTP/2 transfer does; it then reads at most its default size into that buffer.
            if let size = loop?.readBufferSize(sinks: original.downloadSink != nil) {
                _ = ccurl_easy_setopt_long(handle, Int32(CCURLOPT_BUFFERSIZE), size)
            }
            if let trustedCertificates = settings.trustedCertificates {
                try set(CCURLOPT_CAINFO, string: trustedCertificates.path)
            } else if !settings.tls.trustsSystemCertificates {
                try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_CAINFO), nil))
            }
            if !settings.tls.trustsSystemCertificates {
                // No CA folder: the system's roots there (Debian's /etc/ssl/certs) stop applying.
                try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_CAPATH), nil))
            }
            try configureTLS(settings.tls)
            // Set even when empty: "" means no proxy, where libcurl would read the environment.
            // A host mapped to a Unix domain socket is reached through it, never a proxy.
            let sockets = settings.unixSockets
            let socket = sockets.isEmpty ? nil : requestURL.host.flatMap { sockets[$0.lowercased()] }
            if let socket { try set(CCURLOPT_UNIX_SOCKET_PATH, string: socket) }
            let proxy = socket == nil ? settings.proxies.proxy(for: requestURL) : nil
            try set(CCURLOPT_PROXY, string: proxy?.url.absoluteString ?? "")
            // A tunnel's CONNECT answer is the proxy's, not the response: its head must not reach
            // the header callback (an upgrade would read the proxy's 200 as the server's answer).
            try set(CCURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
            // Apart from the address, so that libcurl's messages about the proxy cannot show them.
            if let username = proxy?.username {
                try set(CCURLOPT_PROXYUSERNAME, string: username)
                try set(CCURLOPT_PROXYPASSWORD, string: proxy?.password ?? "")
            }
            if let noProxy = settings.proxies.noProxy { try set(CCURLOPT_NOPROXY, string: noProxy) }
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_PRIVATE), context))
            loop?.prepare(handle)
            errorBuffer[0] = 0
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_ERRORBUFFER), errorBuffer))
            try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_WRITEFUNCTION), curlWrite))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_WRITEDATA), context))
            try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_HEADERFUNCTION), curlHeader))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_HEADERDATA), context))
            try set(CCURLOPT_NOPROGRESS, 0)
            try check(
                ccurl_easy_setopt_progress_callback(handle, Int32(CCURLOPT_XFERINFOFUNCTION), curlProgress))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_XFERINFODATA), context))
            if upgradeSink != nil {
                // libcurl only connects (through the proxy's tunnel, then TLS); the loop writes
                // the request itself (see ``CurlHandshake``). Over a proxy even plain http goes
                // through a CONNECT tunnel: the upgraded bytes must reach the origin untouched.
                try set(CCURLOPT_CONNECT_ONLY, 1)
                if proxy != nil { try set(CCURLOPT_HTTPPROXYTUNNEL, 1) }
                resetResponse()
                return
            }
            let (sendsBody, uploadSize) = try configureMethodAndBody()
            var list: OpaquePointer?
            // Framing comes from the body alone (see `TransportRequest.framingHeaderNames`).
            let fields = request.allHTTPHeaderFields ?? [:]
            var lines = fields.filter { !TransportRequest.isFraming($0.key) }
                .map {
                    name, value in
                    // "Name;" is libcurl's way to send a header with an empty value.
                    value.isEmpty ? "\(name);" : "\(name): \(value)"
                }
            // The jar's cookies, at the wire only; a request's own `Cookie` header is left alone.
            if let cookies = settings.cookies?.headerValue(for: requestURL, fields: fields) {
                lines.append("Cookie: \(cookies)")
            }
            // `Expect: 100-continue` for large bodies only, at one threshold whatever libcurl's
            // version would choose (7.88: over 1 MiB); a server that ignores it costs a second's
            // wait. "Expect:" tells libcurl to send none.
            let setsExpect = fields.keys.contains { HTTPHeaders.same($0, "Expect") }
            if let uploadSize, !setsExpect {
                lines.append(uploadSize < Self.expectContinueThreshold ? "Expect:" : "Expect: 100-continue")
            }
            // libcurl gives a body sent without a type `application/x-www-form-urlencoded`: a body
            // is sent with the type the request gives, or none ("Content-Type:" sends none).
            if sendsBody, !fields.keys.contains(where: { HTTPHeaders.same($0, "Content-Type") }) {
                lines.append("Content-Type:")
            }
            // A streamed body of unknown length goes chunked on HTTP/1.1 (libcurl sends HTTP/2
            // DATA frames instead), and without `Expect: 100-continue`: no size to weigh.
            if let stream = original.bodyStream, sendsBody, stream.length == nil {
                lines.append("Transfer-Encoding: chunked")
                if !setsExpect { lines.append("Expect:") }
            }
            for line in lines {
                guard let appended = ccurl_slist_append(list, line) else { throw URLError(.unknown) }
                list = appended
            }
            headerList = list
            if let list {
                try check(
                    ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(list)))
            }
            resetResponse()
        }

        /// libcurl speaks only http and https, whatever URL reaches it (it also speaks file, ftp,
        /// dict, gopher, smtp, telnet and more): defence in depth behind the wire contract.
        /// `CURLOPT_PROTOCOLS_STR` since 7.85, the bit masks before.
        private func allowOnlyHTTP() throws {
            if (try? set(CCURLOPT_PROTOCOLS_STR, string: "http,https")) == nil {
                try set(CCURLOPT_PROTOCOLS, Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS))
                try set(CCURLOPT_REDIR_PROTOCOLS, Int(CCURLPROTO_HTTP | CCURLPROTO_HTTPS))
            } else {
                try set(CCURLOPT_REDIR_PROTOCOLS_STR, string: "http,https")
            }
        }

        /// The methods whose requests carry a body even when it is empty (`Content-Length: 0`).
        static let methodsWithContent: Set<String> = ["POST", "PUT", "PATCH"]

        /// The smallest body sent with `Expect: 100-continue`.
        static let expectContinueThreshold: Int64 = 1 << 20

        /// Sets the method and the body; returns whether a body is sent, and its size (nil when
        /// there is none, or when a file's size is unknown).
        private func configureMethodAndBody() throws -> (sendsBody: Bool, size: Int64?) {
            let method = request.httpMethod ?? "GET"
            let hasFile = original.bodyFileURL != nil && method != "GET" && method != "HEAD"
            let hasStream = original.bodyStream != nil && method != "GET" && method != "HEAD"
            let body = request.httpBody ?? Data()
            switch method {
            case "GET" where !hasFile && body.isEmpty:
                try set(CCURLOPT_HTTPGET, 1)
            case "HEAD":
                try set(CCURLOPT_NOBODY, 1)
            default:
                // POST, PUT and PATCH define a body: without one they send `Content-Length: 0`
                // (RFC 9110 §8.6; strict servers answer 411 otherwise). Other methods send none.
                if hasFile || hasStream || !body.isEmpty || Self.methodsWithContent.contains(method) {
                    // A body goes as a POST's, under the request's own method.
                    try set(CCURLOPT_POST, 1)
                    if method != "POST" { try set(CCURLOPT_CUSTOMREQUEST, string: method) }
                    if hasStream, let stream = original.bodyStream {
                        return (true, try configureBody(stream))
                    }
                    return (true, try configureBody(body, fromFile: hasFile ? original.bodyFileURL : nil))
                } else {
                    try set(CCURLOPT_CUSTOMREQUEST, string: method)
                }
            }
            return (false, nil)
        }

        private func configureBody(_ body: Data, fromFile file: URL?) throws -> Int64? {
            if let file {
                // "e": close-on-exec, so a process started meanwhile does not inherit the descriptor.
                guard let stream = fopen(file.path, "rbe") else {
                    throw APIError.fileFailed(
                        reason: "could not open the body file", underlying: nil,
                        context: .init(request: request))
                }
                bodyFile = stream
                let size =
                    (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? nil
                try check(ccurl_easy_setopt_offset(handle, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), size ?? -1))
                try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_READFUNCTION), curlRead))
                try check(
                    ccurl_easy_setopt_pointer(
                        handle, Int32(CCURLOPT_READDATA), Unmanaged.passUnretained(self).toOpaque()))
                return size
            }
            // libcurl reads the body from this copy until the hop ends.
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 1)
            body.copyBytes(to: copy)
            requestBody = copy
            try check(
                ccurl_easy_setopt_offset(handle, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), Int64(body.count)))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_POSTFIELDS), copy.baseAddress))
            return Int64(body.count)
        }

        /// A body read from a ``BodyStream`` as libcurl sends it: with its length, or chunked.
        private func configureBody(_ stream: BodyStream) throws -> Int64? {
            // A retry, a second try or a 307 needs the body again: only a replayable one has it.
            guard let pieces = stream.makePieces() else {
                throw APIError.transport(underlying: BodyStreamConsumed(), context: .init(request: request))
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            bodyReader = BodyStreamReader(
                pieces: pieces, length: stream.length, bufferSize: stream.bufferSize,
                wake: { [weak self, weak loop] in
                    if let self { loop?.submit(.resume(self)) }
                },
                // libcurl asks for no more once the length went out, and may be waiting for the
                // answer: the transfer is stopped (its connection closed) rather than left to succeed.
                overran: { [weak self, weak loop] reader, _ in
                    if let self { loop?.submit(.overran(self, reader)) }
                })
            try check(
                ccurl_easy_setopt_offset(handle, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), stream.length ?? -1))
            try check(ccurl_easy_setopt_data_callback(handle, Int32(CCURLOPT_READFUNCTION), curlReadStream))
            try check(ccurl_easy_setopt_pointer(handle, Int32(CCURLOPT_READDATA), context))
            return stream.length
        }

        /// The client certificate, the pinned keys and the oldest version (CURL_SSLVERSION_TLSv1_2
        /// is 6, TLSv1_3 7).
        private func configureTLS(_ tls: TLSOptions) throws {
            try set(CCURLOPT_SSLVERSION, tls.minimumVersion == .tls13 ? 7 : 6)
            if let certificate = tls.clientCertificate {
                try set(CCURLOPT_SSLCERT, string: certificate.path)
                try set(CCURLOPT_SSLKEY, string: (tls.clientKey ?? certificate).path)
                if let password = tls.clientKeyPassword { try set(CCURLOPT_KEYPASSWD, string: password) }
            }
            if let pins = tls.curlPins { try set(CCURLOPT_PINNEDPUBLICKEY, string: pins) }
        }

        private func set(_ option: Int, _ value: Int) throws {
            try check(ccurl_easy_setopt_long(handle, Int32(option), value))
        }

        private func set(_ option: Int, string: String) throws {
            // libcurl copies strings given to setopt (since 7.17).
            try check(string.withCString { ccurl_easy_setopt_pointer(handle, Int32(option), $0) })
        }

        private func check(_ code: Int32) throws {
            guard code == 0 else {
                throw URLError(
                    .unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl: \(CurlLibrary.describe(code))"])
            }
        }
    }
#endif
