import Foundation

extension URL {
    /// Whether `other` has the same origin (RFC 6454): scheme, host and port, with the default
    /// port of http (80) and https (443) filled in. Used to keep BaseAPI routes on their base
    /// URL and to strip credentials when a redirect leaves the original origin.
    func hasSameOrigin(as other: URL?) -> Bool {
        guard let other else { return false }
        return httpScheme == other.httpScheme
            && host?.lowercased() == other.host?.lowercased()
            && effectivePort == other.effectivePort
    }

    /// The scheme in lower case, a WebSocket's as the HTTP one its handshake uses (`ws` is
    /// `http`, `wss` is `https`, RFC 6455 §3): a socket at `wss://host` is the API at
    /// `https://host`, and gets its credentials.
    var httpScheme: String? {
        switch scheme?.lowercased() {
        case "ws": "http"
        case "wss": "https"
        case let other: other
        }
    }

    private var effectivePort: Int? {
        port ?? (httpScheme == "https" ? 443 : httpScheme == "http" ? 80 : nil)
    }
}
