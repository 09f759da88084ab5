import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long a response says its body is, read strictly (RFC 9112 §6.3).
///
/// A `Content-Length` that is a list of differing values, or anything but a non-negative
/// decimal integer, is an unrecoverable framing error: libcurl would read the last value or the
/// leading digits and hand over a short body as if it were whole. FoundationNetworking joins
/// repeated header lines with `", "`, so both forms arrive here as one list.
package enum ResponseFraming: Equatable {
    /// No `Content-Length`, or a `Transfer-Encoding` that overrides it.
    case unknown
    /// The declared length of the body as sent (of the encoded bytes, when it is compressed).
    case length(Int64)
    /// Digits only, but more than any body can have (beyond 64 bits).
    case impossible
    /// A framing error, with what was wrong with the header.
    case invalid(reason: String)

    /// Reads the framing headers of `response`.
    init(_ response: HTTPURLResponse) {
        self.init(FramingHeaders(response))
    }

    package init(_ headers: FramingHeaders) {
        self = headers.transferEncoding == nil ? Self(contentLength: headers.contentLength) : .unknown
    }

    /// Reads one `Content-Length` field value (repeated lines joined with commas).
    init(contentLength field: String?) {
        guard let field else {
            self = .unknown
            return
        }
        // Over the bytes: String's character view (grapheme breaking for each step) cost
        // microseconds per response on the loop, for a field that is ASCII when it is valid.
        let read =
            field.utf8.withContiguousStorageIfAvailable(Self.readMembers)
            ?? Self.readMembers(Array(field.utf8)[...])
        switch read {
        case .value(let value): self = value ?? .unknown
        case .notDecimal:
            self = .invalid(reason: "Content-Length \"\(field)\" is not a non-negative decimal integer")
        case .differing: self = .invalid(reason: "Content-Length \"\(field)\" has differing values")
        }
    }

    /// What the comma-separated members of a `Content-Length` field say.
    private enum Members {
        /// Every member says the same (nil when there is none).
        case value(ResponseFraming?)
        case notDecimal
        case differing
    }

    private static func readMembers<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Members {
        var declared: Self?
        for member in bytes.split(separator: 0x2C, omittingEmptySubsequences: false) {
            let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            guard let first = member.firstIndex(where: { !isBlank($0) }),
                let last = member.lastIndex(where: { !isBlank($0) })
            else { return .notDecimal }
            var value: Int64? = 0
            for byte in member[first...last] {
                guard (0x30...0x39).contains(byte) else { return .notDecimal }
                if let current = value {
                    let (times, overflowed) = current.multipliedReportingOverflow(by: 10)
                    let (sum, carried) = times.addingReportingOverflow(Int64(byte - 0x30))
                    value = overflowed || carried ? nil : sum
                }
            }
            let reading: Self = value.map { .length($0) } ?? .impossible
            if let declared, declared != reading { return .differing }
            declared = reading
        }
        return .value(declared)
    }

    /// The error for an invalid framing: a `URLError` the retry policy and callers know, whose
    /// description says what was wrong.
    static func error(reason: String) -> URLError {
        URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "Malformed response: \(reason)"])
    }
}

/// The three headers that decide how a response body is framed, read in one pass over the
/// response's fields: FoundationNetworking's `value(forHTTPHeaderField:)` lowercases every field
/// name on each call, which cost a few microseconds per response, three times.
package struct FramingHeaders {
    var contentLength: String?
    var transferEncoding: String?
    var contentEncoding: String?

    init(_ response: HTTPURLResponse) {
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let value = value as? String else { continue }
            take(name, value)
        }
    }

    /// The framing headers among the lines of a head not yet made into an `HTTPURLResponse`,
    /// repeated lines joined in order as FoundationNetworking joins them.
    package init(lines: [(name: String, value: String)]) {
        for (name, value) in lines { take(name, value) }
    }

    private mutating func take(_ name: String, _ value: String) {
        if HTTPHeaders.same(name, "Content-Length") {
            Self.add(value, to: &contentLength)
        } else if HTTPHeaders.same(name, "Transfer-Encoding") {
            Self.add(value, to: &transferEncoding)
        } else if HTTPHeaders.same(name, "Content-Encoding") {
            Self.add(value, to: &contentEncoding)
        }
    }

    /// Fields whose names differ only in case are one field, their values joined as repeated
    /// lines are (so that two different lengths are seen as such).
    private static func add(_ value: String, to field: inout String?) {
        field = field.map { "\($0), \(value)" } ?? value
    }
}
