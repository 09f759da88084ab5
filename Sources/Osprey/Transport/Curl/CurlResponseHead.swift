#if canImport(CCurl)
    import Foundation

    /// A final response's head as libcurl delivered it, before it becomes an `HTTPURLResponse`.
    ///
    /// FoundationNetworking's `HTTPURLResponse` initialiser is slow (it capitalises every field
    /// name and compares it through NSString: about 9 % of the CPU with 16 small requests in
    /// flight), so the loop makes one only when it needs it (an error, a redirect, a download),
    /// and a plain answer goes out as its parts (``TransportResponse`` makes one if asked).
    struct CurlResponseHead: Sendable {
        let url: URL
        let statusCode: Int
        /// As in the status line: `HTTP/1.1`, `HTTP/2`.
        let version: String
        /// The fields in the order received.
        let headers: HTTPHeaders

        func makeResponse() -> HTTPURLResponse? {
            HTTPURLResponse(
                url: url, statusCode: statusCode, httpVersion: version, headerFields: headers.dictionary)
        }
    }
#endif
