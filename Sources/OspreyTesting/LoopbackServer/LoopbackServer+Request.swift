import Foundation

extension LoopbackServer {
    /// A request exactly as the loopback server received it.
    public struct Request: Sendable {
        /// The method token from the request line.
        public let method: String
        /// The request target from the request line, still percent-encoded (`/a%20b?x=1`); a
        /// client talking to the server as a proxy sends the absolute form (`http://host/a?x=1`).
        public let target: String
        /// The protocol version from the request line (`HTTP/1.1`).
        public let version: String
        /// Every header line, in the order and case received.
        public let headers: [HeaderField]
        /// The body after removing any chunked framing.
        public let body: Data
        /// Every byte of the request as it came off the socket: head, framing and body (the head
        /// only when the server discards bodies).
        public let raw: Data
        /// The body's length in bytes, also when the server discarded it.
        public let bodyLength: Int
        /// Identifies the TCP connection it arrived on; equal ids mean the connection was reused.
        public let connectionID: Int
        /// The client's TCP port on that connection (0 over a Unix socket).
        package internal(set) var clientPort = 0
        /// Values captured by `:name` segments of the matched route, percent-decoded.
        public internal(set) var pathParameters: [String: String] = [:]
        /// The absolute URL as the client had it, when known (``MockTransport`` records it).
        var absoluteURL: URL?

        /// The request's absolute URL: as the client had it for ``MockTransport``; for the
        /// loopback server, `http://` and the `Host` header before the target (an absolute-form
        /// target as it is). Nil when it cannot be made.
        public var url: URL? {
            if let absoluteURL { return absoluteURL }
            if target.hasPrefix("http://") || target.hasPrefix("https://") { return URL(string: target) }
            guard let host = value(forHeader: "Host") else { return nil }
            return URL(string: "http://\(host)\(target)")
        }

        /// The target's path, still percent-encoded; for an absolute-form target (a request to
        /// a proxy), the path after its authority, so that routes match either form.
        public var path: String {
            String(originForm.prefix { $0 != "?" && $0 != "#" })
        }

        /// The target's query string without the `?`, still percent-encoded; nil without a `?`.
        public var query: String? {
            guard let mark = originForm.firstIndex(of: "?") else { return nil }
            return String(originForm[originForm.index(after: mark)...].prefix { $0 != "#" })
        }

        /// The target as path and query: an absolute-form target (`http://host:1/a?b`, RFC 9112
        /// section 3.2.2) loses its scheme and authority; any other form is kept as it is.
        private var originForm: Substring {
            guard let schemeEnd = target.range(of: "://"), !target.hasPrefix("/") else { return target[...] }
            let authority = target[schemeEnd.upperBound...]
            guard let slash = authority.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
            return authority[slash] == "?" ? Substring("/" + authority[slash...]) : authority[slash...]
        }

        /// The query as decoded name/value pairs, in order. `+` stays `+` (RFC 3986, not HTML forms).
        public var queryItems: [URLQueryItem] {
            guard let query, !query.isEmpty else { return [] }
            return query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                let value =
                    parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : nil
                return URLQueryItem(name: name, value: value)
            }
        }

        /// The body decoded as UTF-8 (invalid sequences replaced).
        public var bodyText: String { String(decoding: body, as: UTF8.self) }

        /// The first value of a header, compared case-insensitively.
        public func value(forHeader name: String) -> String? { headers.firstValue(named: name) }

        /// Every value of a header, in order, compared case-insensitively.
        public func values(forHeader name: String) -> [String] { headers.allValues(named: name) }
    }

    /// Bytes that were refused as a malformed request, and the status the server answered.
    public struct Rejection: Sendable {
        /// The status sent back (400, 413, 431, 501 or 505).
        public let status: Int
        /// Why the bytes were refused.
        public let reason: String
        /// The bytes received on that connection before it was refused.
        public let raw: Data
    }
}
