import Foundation

/// Removes credentials from what Osprey prints: user info and query values of URLs.
enum Redaction {
    /// The URL text without user info and with every query value replaced by `…`.
    static func url(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return "<unparseable URL>" }
        removeUserInfo(from: &components)
        if let items = components.queryItems, !items.isEmpty {
            components.queryItems = items.map {
                URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "redacted")
            }
        }
        return components.string ?? "<unparseable URL>"
    }

    /// The URL as sent, but without user info and with the values of query items whose names
    /// look secret (`token`, `key`, `password`, …) replaced: for commands a developer reruns.
    static func urlKeepingPlainQueryValues(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<unparseable URL>"
        }
        removeUserInfo(from: &components)
        if let items = components.percentEncodedQueryItems, !items.isEmpty {
            components.percentEncodedQueryItems = items.map { item in
                guard item.value != nil, isSecretQueryName(item.name) else { return item }
                return URLQueryItem(name: item.name, value: "redacted")
            }
        }
        return components.string ?? "<unparseable URL>"
    }

    private static func removeUserInfo(from components: inout URLComponents) {
        if components.user != nil || components.password != nil {
            components.user = "<redacted>"
            components.password = nil
        }
    }

    private static func isSecretQueryName(_ name: String) -> Bool {
        let lowered = (name.removingPercentEncoding ?? name).lowercased()
        return [
            "token", "key", "secret", "password", "passwd", "signature", "sig", "auth", "session", "code",
        ]
        .contains { lowered.contains($0) }
    }

    /// What a type that holds a secret shows for it (a password, a token, a cookie's value):
    /// whether there is one, never its text.
    static func secret(_ secret: String?) -> String {
        secret == nil ? "nil" : "<redacted>"
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
