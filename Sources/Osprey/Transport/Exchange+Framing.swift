import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a response's head allows before its body is read: strict framing (RFC 9112 §6.3) and
/// the size limit, when the declared length is of the decoded bytes.
extension Exchange {
    /// What a response's framing allows, before any of its body is read.
    enum FramingVerdict {
        /// Go on; the body length when it is known and not compressed.
        case accept(bodyLength: Int64?)
        case invalid(reason: String)
        case tooLarge
    }

    func verdict(on response: HTTPURLResponse, method: String?) -> FramingVerdict {
        // A compressed body's Content-Length says nothing about its decoded size.
        let headers = FramingHeaders(response)
        let encoded = headers.contentEncoding.map { $0 != "identity" } ?? false
        let hasBody = method != "HEAD" && response.statusCode != 204 && response.statusCode != 304
        switch ResponseFraming(headers) {
        case .invalid(let reason):
            return .invalid(reason: reason)
        case .impossible:
            return .tooLarge
        case .length(let length) where !encoded && hasBody:
            // A download's successful body goes to disk, under the sink's own limit.
            let toDisk = original.downloadSink != nil && (200..<300).contains(response.statusCode)
            let limit =
                toDisk ? original.downloadSink?.maximumBytes : original.maximumResponseBytes.map(Int64.init)
            if let limit, length > limit { return .tooLarge }
            return .accept(bodyLength: length)
        case .length, .unknown:
            return .accept(bodyLength: hasBody ? nil : 0)
        }
    }

    func reject(_ verdict: FramingVerdict) {
        switch verdict {
        case .accept:
            break
        case .invalid(let reason):
            fail { .transport(underlying: ResponseFraming.error(reason: reason), context: $0) }
        case .tooLarge:
            let limit =
                original.downloadSink?.maximumBytes.map { Int(clamping: $0) } ?? original.maximumResponseBytes
            fail { .responseTooLarge(limit: limit ?? Int.max, context: $0) }
        }
    }
}
