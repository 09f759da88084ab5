import Foundation

// A cookie's value is often a session's credential. `dump` and debuggers read a class's stored
// properties (the jar's store, values and all), so a custom mirror shows the cookies' names,
// domains and paths only; the descriptions match.
extension CookieJar: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The number of cookies kept, never their values.
    public var description: String {
        "CookieJar(cookies: \(allCookies.count))"
    }

    /// The cookies kept, each as `name=<redacted>; Domain=…; Path=…`.
    public var debugDescription: String {
        "CookieJar(" + redactedCookies.joined(separator: ", ") + ")"
    }

    /// The jar for `dump` and debuggers: the cookies kept, their values redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["cookies": redactedCookies], displayStyle: .class)
    }

    private var redactedCookies: [String] {
        allCookies.map { "\($0.name)=\(Redaction.secret($0.value)); Domain=\($0.domain); Path=\($0.path)" }
    }
}
