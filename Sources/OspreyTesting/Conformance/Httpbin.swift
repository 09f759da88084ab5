import Foundation

/// The httpbin conformance server, when one is running: `Scripts/with-httpbin.sh` (and so
/// `Scripts/test.sh` and CI) starts it and exports `HTTPBIN_URL`.
///
/// ```swift
/// @Suite(.enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set"))
/// struct MyHttpbinTests { … }
/// ```
package enum Httpbin {
    /// `HTTPBIN_URL` from the environment, or nil when no server was started.
    package static let baseURL: URL? = ProcessInfo.processInfo.environment["HTTPBIN_URL"].flatMap(
        URL.init(string:))

    /// The same server under the name `localhost`: another origin, for cross-origin tests.
    package static var localhostURL: URL? {
        guard let baseURL, var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            return nil
        }
        components.host = "localhost"
        return components.url
    }
}
