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
enum ResponseFraming: Equatable {
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
        let transferEncoding = response.value(forHTTPHeaderField: "Transfer-Encoding")
        self =
            transferEncoding == nil
            ? Self(contentLength: response.value(forHTTPHeaderField: "Content-Length")) : .unknown
    }

    /// Reads one `Content-Length` field value (repeated lines joined with commas).
    init(contentLength field: String?) {
        guard let field else {
            self = .unknown
            return
        }
        var declared: Self?
        for member in field.split(separator: ",", omittingEmptySubsequences: false) {
            let text = member.trimmingCharacters(in: [" ", "\t"])
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                self = .invalid(reason: "Content-Length \"\(field)\" is not a non-negative decimal integer")
                return
            }
            let value: Self = Int64(text).map { .length($0) } ?? .impossible
            if let declared, declared != value {
                self = .invalid(reason: "Content-Length \"\(field)\" has differing values")
                return
            }
            declared = value
        }
        self = declared ?? .unknown
    }

    /// The error for an invalid framing: a `URLError` the retry policy and callers know, whose
    /// description says what was wrong.
    static func error(reason: String) -> URLError {
        URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "Malformed response: \(reason)"])
    }
}
