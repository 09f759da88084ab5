import Foundation

/// The transport an API uses when it is given none: ``CurlTransport`` on Linux (faster, and
/// it keeps the same contract), ``URLSessionTransport`` on Apple platforms and wherever libcurl
/// cannot be loaded.
enum DefaultTransport {
    static func make() -> any HTTPTransport {
        #if canImport(CCurl)
            if let transport = CurlTransport() { return transport }
            _ = reportedFallback
        #endif
        return URLSessionTransport()
    }

    /// Says once per process why Linux falls back to URLSession (the first use reads it).
    private static let reportedFallback: Void = {
        let reason = CurlTransport.unavailableReason ?? "unknown reason"
        FileHandle.standardError.write(
            Data("Osprey: using URLSessionTransport, libcurl is unavailable (\(reason))\n".utf8))
    }()
}
