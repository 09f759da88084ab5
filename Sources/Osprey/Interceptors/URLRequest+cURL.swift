import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The request as a `curl` command line, quoted for POSIX shells.
    ///
    /// By default credentials are replaced by `<redacted>`: the values of sensitive headers
    /// (see ``HTTPHeaders/isSensitive(_:declared:)``), user info in the URL, and query values whose names
    /// look like secrets (`token`, `key`, `secret`, `password`, `signature`, …). The body is
    /// summarised by its size, since it may hold a password.
    /// - Parameters:
    ///   - revealingCredentials: Show everything, body included (UTF-8 bodies up to 64 KiB);
    ///     for local debugging only.
    ///   - sensitiveHeaders: More header names to redact, in any case (an API's
    ///     ``APIConfiguration/sensitiveHeaders``).
    public func cURLDescription(revealingCredentials: Bool = false, sensitiveHeaders: Set<String> = [])
        -> String
    {
        var parts = ["curl"]
        let method = httpMethod ?? "GET"
        if method != "GET" { parts += ["-X", Self.shellQuoted(method)] }
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            let secret = HTTPHeaders.isSensitive(name, declared: sensitiveHeaders)
            let shown = !revealingCredentials && secret ? "<redacted>" : value
            parts += ["-H", Self.shellQuoted("\(name): \(shown)")]
        }
        if let body = httpBody, !body.isEmpty {
            if revealingCredentials, body.count <= 64 * 1024, let text = String(data: body, encoding: .utf8) {
                parts += ["--data-binary", Self.shellQuoted(text)]
            } else {
                parts += ["--data-binary", Self.shellQuoted("<\(body.count) bytes>")]
            }
        }
        let address =
            url.map { revealingCredentials ? $0.absoluteString : Redaction.urlKeepingPlainQueryValues($0) }
            ?? ""
        parts.append(Self.shellQuoted(address))
        return parts.joined(separator: " ")
    }

    /// Single quotes, with each `'` written as `'\''`: nothing inside is interpreted.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
