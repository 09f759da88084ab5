#if canImport(CCurl)
    import Foundation

    /// A final response's head as libcurl delivered it, before it becomes an `HTTPURLResponse`.
    ///
    /// FoundationNetworking's `HTTPURLResponse` initialiser is slow (it capitalises every field
    /// name and parses `Content-Type` a character at a time: about a quarter of the loop thread's
    /// time with 16 small requests in flight), so the loop makes one only when it needs it (an
    /// error, a redirect, a download) and a plain answer gets it on the delivery queue.
    struct CurlResponseHead: Sendable {
        let url: URL
        let statusCode: Int
        /// As in the status line: `HTTP/1.1`, `HTTP/2`.
        let version: String
        /// Repeated fields joined, names as first spelled.
        let fields: [String: String]

        func makeResponse() -> HTTPURLResponse? {
            HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: version, headerFields: fields)
        }
    }
#endif
