import Foundation

// Header values can be credentials: printed in any way (`dump` and debuggers included), the
// sensitive ones are redacted, as in ``HTTPHeaders/description``.
extension HTTPHeaders: CustomDebugStringConvertible, CustomReflectable {
    /// The headers as `HTTPHeaders(...)`, credentials redacted.
    public var debugDescription: String {
        "HTTPHeaders(\(description.split(separator: "\n").joined(separator: ", ")))"
    }

    /// The fields for `dump` and debuggers, credentials redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: map { field in
                (label: field.name, value: Self.isSensitive(field.name) ? "<redacted>" : field.value)
                    as Mirror.Child
            },
            displayStyle: .dictionary)
    }
}

// Credentials for the `Authorization` header: a password or a token never shows.
extension HTTPHeaders.Authorization: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The scheme and, for `basic`, the user name; the secret redacted.
    public var description: String {
        switch self {
        case .basic(let username, _): "basic(username: \(username.debugDescription), password: <redacted>)"
        case .bearer: "bearer(<redacted>)"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { "Authorization.\(description)" }

    /// The credentials for `dump` and debuggers, the secret redacted.
    public var customMirror: Mirror {
        switch self {
        case .basic(let username, _):
            Mirror(self, children: ["username": username, "password": "<redacted>"], displayStyle: .enum)
        case .bearer:
            Mirror(self, children: ["token": "<redacted>"], displayStyle: .enum)
        }
    }
}
