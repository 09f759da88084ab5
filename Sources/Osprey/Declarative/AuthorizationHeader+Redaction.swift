import Foundation

// The header's value is a credential (a token, or a user name and password in base64): printed
// in any way, only its scheme shows.
extension AuthorizationHeader: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The scheme (`Basic`, `Bearer`, …) with the credentials redacted.
    public var description: String { redactedValue }

    /// The same as ``description``: the credentials redacted.
    public var debugDescription: String { "AuthorizationHeader(\(redactedValue))" }

    /// The header for `dump` and debuggers: the credentials redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": redactedValue], displayStyle: .struct)
    }

    private var redactedValue: String {
        // A scheme is a token (RFC 9110 §11.1): only a first word that is one is shown.
        let words = value.split(separator: " ", maxSplits: 1)
        guard words.count == 2, HTTPToken.isValid(String(words[0])) else { return Redaction.secret(value) }
        return "\(words[0]) \(Redaction.secret(value))"
    }
}
