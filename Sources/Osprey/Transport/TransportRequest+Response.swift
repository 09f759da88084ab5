import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a response's framing allows, before any of its body is read: strict framing (RFC 9112
/// §6.3) and the size limit, when the declared length is of the decoded bytes.
package enum FramingVerdict {
    /// Go on; the body length when it is known and not compressed.
    case accept(bodyLength: Int64?)
    case invalid(reason: String)
    case tooLarge
}

/// The rules every transport applies to a response's head, written once.
extension TransportRequest {
    /// The verdict on a response's head, for a request sent with `method`.
    func framingVerdict(on response: HTTPURLResponse, method: String?) -> FramingVerdict {
        framingVerdict(statusCode: response.statusCode, headers: FramingHeaders(response), method: method)
    }

    /// The verdict on a head given by its status and framing headers.
    package func framingVerdict(statusCode: Int, headers: FramingHeaders, method: String?) -> FramingVerdict {
        // A compressed body's Content-Length says nothing about its decoded size.
        let encoded = headers.contentEncoding.map { $0 != "identity" } ?? false
        let hasBody = method != "HEAD" && statusCode != 204 && statusCode != 304
        switch ResponseFraming(headers) {
        case .invalid(let reason):
            return .invalid(reason: reason)
        case .impossible:
            return .tooLarge
        case .length(let length) where !encoded && hasBody:
            if let limit = bodyLimit(statusCode: statusCode), length > limit { return .tooLarge }
            return .accept(bodyLength: length)
        case .length, .unknown:
            return .accept(bodyLength: hasBody ? nil : 0)
        }
    }

    /// The most body bytes allowed for a response with `statusCode`: a download's successful
    /// body goes to disk, under the sink's own limit; anything else is held in memory, under the
    /// response limit.
    func bodyLimit(statusCode: Int) -> Int64? {
        let toDisk = downloadSink != nil && (200..<300).contains(statusCode)
        return toDisk ? downloadSink?.maximumBytes : maximumResponseBytes.map(Int64.init)
    }

    /// The error a `.tooLarge` verdict fails with.
    var tooLargeLimit: Int {
        downloadSink?.maximumBytes.map { Int(clamping: $0) } ?? maximumResponseBytes ?? Int.max
    }

    /// Whether the transport will follow this response to another hop (its body is not the
    /// answer: it is neither reported as progress nor written to a download).
    func willFollow(_ response: HTTPURLResponse) -> Bool {
        willFollow(
            statusCode: response.statusCode,
            hasLocation: response.value(forHTTPHeaderField: "Location") != nil)
    }

    /// Whether the transport will follow a response with `statusCode` and, or without, a
    /// `Location` (the same rule as above, for a head not yet made into a response).
    func willFollow(statusCode: Int, hasLocation: Bool) -> Bool {
        guard case .follow = redirectPolicy else { return false }
        return RedirectRules.followedStatuses.contains(statusCode) && hasLocation
    }
}
