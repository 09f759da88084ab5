import Foundation

/// The transport an API uses when it is given none: ``CurlTransport`` on Linux (faster, and
/// it keeps the same contract), ``URLSessionTransport`` on Apple platforms and wherever libcurl
/// cannot be loaded.
package enum DefaultTransport {
    package static func make() -> any HTTPTransport {
        #if canImport(CCurl)
            choose(curl: CurlTransport(), report: { _ = reportedFallback })
        #else
            URLSessionTransport()
        #endif
    }

    /// `curl` when there is one; otherwise `report()` and a new ``URLSessionTransport``.
    static func choose(curl: (any HTTPTransport)?, report: () -> Void) -> any HTTPTransport {
        if let curl { return curl }
        report()
        return URLSessionTransport()
    }

    /// What Linux says when it falls back to URLSession.
    static func fallbackMessage(reason: String?) -> String {
        "Osprey: using URLSessionTransport, libcurl is unavailable (\(reason ?? "unknown reason"))\n"
    }

    /// Says once per process why Linux falls back to URLSession (the first use reads it).
    private static let reportedFallback: Void = {
        FileHandle.standardError.write(Data(fallbackMessage(reason: CurlTransport.unavailableReason).utf8))
    }()
}
