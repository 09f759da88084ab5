#if canImport(CCurl)
    import Foundation

    /// The opening of an upgraded connection (a WebSocket's), which libcurl cannot do itself
    /// here (Debian's libcurl has no WebSocket support): libcurl makes the connection, through
    /// any proxy and TLS (`CURLOPT_CONNECT_ONLY`), then the loop writes the HTTP/1.1 request and
    /// reads the answer's head itself. A `101` hands the connection over; any other answer's body
    /// is read as its framing says, so that it can be delivered (an error page) or followed (a
    /// redirect) like any response.
    ///
    /// Used on the loop's thread only, by its ``CurlTransfer``.
    final class CurlHandshake {
        /// The connection's socket, watched by the loop's poller.
        let socket: Int32
        /// The request's head, and how much of it went out.
        let output: [UInt8]
        private(set) var written = 0
        /// A head line not yet ended.
        var line: [UInt8] = []
        /// Head bytes read so far (a head past ``headLimit`` fails).
        var headBytes = 0
        /// How the body of an answer other than `101` ends, once its head was read.
        var body: Body?

        /// The most head bytes read: libcurl's own limit for a response's head.
        static let headLimit = 100 << 10

        enum Body {
            /// `remaining` bytes more (a `Content-Length`, or none for `204`, `304`).
            case length(remaining: Int64)
            /// A chunked body.
            case chunked(ChunkedBodyDecoder)
            /// Until the server closes the connection.
            case untilClose
        }

        init(socket: Int32, request: [UInt8]) {
            self.socket = socket
            output = request
        }

        /// Whether the whole request went out.
        var requestSent: Bool { written == output.count }

        /// Counts bytes the connection took.
        func sent(_ count: Int) {
            written += count
        }

        /// The bytes still to send.
        var unsent: ArraySlice<UInt8> { output[written...] }

        /// The request's head as HTTP/1.1 writes it (RFC 9112 §3): `GET target HTTP/1.1`, `Host`,
        /// the request's fields (none of the framing ones: the request has no body), and the
        /// jar's cookies unless the request sets its own. The wire contract was checked before:
        /// no field or target carries a line break.
        static func requestHead(for request: URLRequest, cookies: CookieJar?) -> [UInt8] {
            guard let url = request.url else { return [] }
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            var target = components?.percentEncodedPath ?? "/"
            if target.isEmpty { target = "/" }
            if let query = components?.percentEncodedQuery { target += "?" + query }
            var head = "GET \(target) HTTP/1.1\r\n"
            let fields = request.allHTTPHeaderFields ?? [:]
            if !fields.keys.contains(where: { HTTPHeaders.same($0, "Host") }) {
                var host = url.host ?? ""
                if host.contains(":") { host = "[\(host)]" }
                let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
                if let port = url.port, port != defaultPort { host += ":\(port)" }
                head += "Host: \(host)\r\n"
            }
            for (name, value) in fields.sorted(by: { $0.key < $1.key })
            where !TransportRequest.isFraming(name) {
                head += "\(name): \(value)\r\n"
            }
            if let line = cookies?.headerValue(for: url, fields: fields) {
                head += "Cookie: \(line)\r\n"
            }
            head += "\r\n"
            return Array(head.utf8)
        }
    }
#endif
