import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RequestMetrics {
    /// The last transaction of what URLSession collected for a task (Apple platforms: Linux's
    /// FoundationNetworking never reports metrics), or nil when it holds none.
    init?(_ collected: URLSessionTaskMetrics) {
        guard let last = collected.transactionMetrics.last, let start = last.fetchStartDate,
            let end = last.responseEndDate
        else { return nil }
        func span(_ from: Date?, _ to: Date?) -> TimeInterval? {
            guard let from, let to else { return nil }
            return max(0, to.timeIntervalSince(from))
        }
        let reused = last.isReusedConnection
        self.init(
            domainLookup: reused ? nil : span(last.domainLookupStartDate, last.domainLookupEndDate),
            connect: reused
                ? nil : span(last.connectStartDate, last.secureConnectionStartDate ?? last.connectEndDate),
            secureConnection: reused
                ? nil : span(last.secureConnectionStartDate, last.secureConnectionEndDate),
            firstByte: span(start, last.responseStartDate) ?? 0,
            total: span(start, end) ?? 0,
            bytesSent: last.countOfRequestHeaderBytesSent + last.countOfRequestBodyBytesSent,
            bytesReceived: last.countOfResponseHeaderBytesReceived + last.countOfResponseBodyBytesReceived,
            reusedConnection: reused,
            httpVersion: last.networkProtocolName.flatMap(Self.protocolName),
            redirects: collected.redirectCount)
    }

    /// ALPN protocol names (`http/1.1`, `h2`, `h3`) as the version's name.
    private static func protocolName(_ alpn: String) -> String? {
        switch alpn.lowercased() {
        case "http/1.0": "HTTP/1.0"
        case "http/1.1": "HTTP/1.1"
        case "h2": "HTTP/2"
        case "h3": "HTTP/3"
        default: nil
        }
    }
}
