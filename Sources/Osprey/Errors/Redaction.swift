import Foundation

/// Removes credentials from what Osprey prints: user info and query values of URLs.
enum Redaction {
    /// The URL text without user info and with every query value replaced by `…`.
    static func url(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return "<unparseable URL>" }
        if components.user != nil || components.password != nil {
            components.user = "<redacted>"
            components.password = nil
        }
        if let items = components.queryItems, !items.isEmpty {
            components.queryItems = items.map {
                URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "redacted")
            }
        }
        return components.string ?? "<unparseable URL>"
    }

    /// An underlying error's description, with any URL in its user info redacted (URLError
    /// descriptions include the failing URL, query and all).
    static func error(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "URLError \(urlError.code.rawValue)"
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain { return "\(nsError.domain) \(nsError.code)" }
        return "\(error)"
    }
}
