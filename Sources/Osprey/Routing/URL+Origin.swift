import Foundation

extension URL {
    /// Whether `other` has the same origin (RFC 6454): scheme, host and port, with the default
    /// port of http (80) and https (443) filled in. Used to keep BaseAPI routes on their base
    /// URL and to strip credentials when a redirect leaves the original origin.
    func hasSameOrigin(as other: URL?) -> Bool {
        guard let other else { return false }
        return scheme?.lowercased() == other.scheme?.lowercased()
            && host?.lowercased() == other.host?.lowercased()
            && effectivePort == other.effectivePort
    }

    private var effectivePort: Int? {
        port ?? (scheme?.lowercased() == "https" ? 443 : scheme?.lowercased() == "http" ? 80 : nil)
    }
}
