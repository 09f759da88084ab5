import Foundation

// The password never shows, however the proxy is printed: ``HTTPProxy/description`` gives the
// address alone, and `String(reflecting:)` and `dump` (which read stored properties, as does a
// debugger) get the same fields with the password redacted.
extension HTTPProxy: CustomDebugStringConvertible, CustomReflectable {
    /// The address, the user name and the bypass list, with the password redacted.
    public var debugDescription: String {
        "HTTPProxy(url: \(Redaction.urlKeepingPlainQueryValues(url)), username: \(username ?? "nil"), "
            + "password: \(Redaction.secret(password)), bypass: \(bypass))"
    }

    /// The proxy's fields for `dump` and debuggers, the password redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": Redaction.urlKeepingPlainQueryValues(url), "username": username as Any,
                "password": Redaction.secret(password),
                "bypass": bypass,
            ], displayStyle: .struct)
    }
}
