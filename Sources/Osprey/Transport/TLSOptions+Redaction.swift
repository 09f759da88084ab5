import Foundation

// The key's passphrase is a secret: however the options are printed (`print`, interpolation,
// `String(reflecting:)`, `dump`, a debugger's summary), it shows as redacted. A custom mirror is
// needed besides the descriptions, because `dump` and the debugger read stored properties.
extension TLSOptions: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The options, with the key's passphrase redacted.
    public var description: String {
        let fields = redactedFields.map { "\($0.label): \($0.value)" }
        return "TLSOptions(" + fields.joined(separator: ", ") + ")"
    }

    /// The same as ``description``: the key's passphrase redacted.
    public var debugDescription: String { description }

    /// The options' fields for `dump` and debuggers, the key's passphrase redacted.
    public var customMirror: Mirror {
        Mirror(
            self, children: redactedFields.map { (label: $0.label, value: $0.value as Any) },
            displayStyle: .struct)
    }

    private var redactedFields: [(label: String, value: String)] {
        var fields: [(label: String, value: String)] = [
            ("clientCertificate", clientCertificate.map(\.path) ?? "nil"),
            ("clientKey", clientKey.map(\.path) ?? "nil"),
            ("clientKeyPassword", Redaction.secret(clientKeyPassword)),
            ("pinnedPublicKeys", "\(pinnedPublicKeys)"),
            ("minimumVersion", "\(minimumVersion)"),
            ("trustsSystemCertificates", "\(trustsSystemCertificates)"),
        ]
        #if canImport(Security)
            fields.append(("clientIdentity", clientIdentity == nil ? "nil" : "<identity>"))
        #endif
        return fields
    }
}
