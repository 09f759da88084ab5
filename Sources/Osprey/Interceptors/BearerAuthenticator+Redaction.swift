import Foundation

// The token is a credential: `dump` and debuggers read stored properties (the lock's state, and
// the token in it), so a custom mirror shows only whether there is one; the descriptions match.
extension BearerAuthenticator: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Whether the authenticator has a token, never the token.
    public var description: String {
        "BearerAuthenticator(token: \(Redaction.secret(currentToken)))"
    }

    /// The same as ``description``: the token redacted.
    public var debugDescription: String { description }

    /// The authenticator for `dump` and debuggers: the token redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": Redaction.secret(currentToken)], displayStyle: .class)
    }
}
