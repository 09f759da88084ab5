import Foundation

/// Reads a `Set-Cookie` header line the way RFC 6265 §5.2 says a user agent does, and decides
/// what §5.3 stores from it.
package enum SetCookie {
    /// The largest name plus value kept (RFC 6265 §6.1 asks for at least 4096 bytes).
    static let maximumBytes = 4096

    /// The cookie `line` sets for a response from `url`, or nil when it is ignored: no `=` in its
    /// first pair, an empty name, too large, a control character or a look-alike of `;` in its
    /// name or value, a `Domain` the URL's host is not in or that is a public suffix (see
    /// `PublicSuffix`; unless it is the host: then the cookie is host-only), `Secure` from plain
    /// http, or a `__Secure-` or `__Host-` name without the attributes its prefix requires. An
    /// already expired cookie is returned as such: it removes a stored one.
    package static func parse(_ line: String, from url: URL, at now: Date) -> Cookie? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        var pieces = split(line[...], at: ";").makeIterator()
        guard let pair = pieces.next(), let (rawName, rawValue) = cut(pair, at: "=") else { return nil }
        let name = trimmed(rawName)
        let value = trimmed(rawValue)
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maximumBytes,
            !hasControlCharacters(name), !hasControlCharacters(value),
            !hasSeparatorLookalike(name), !hasSeparatorLookalike(value)
        else { return nil }

        var expires: Date?
        var maximumAge: Date?
        var domainAttribute: String?
        var path: String?
        var hasPathAttribute = false
        var isSecure = false
        var isHTTPOnly = false
        while let attribute = pieces.next() {
            let (key, attributeValue) = split(attribute)
            switch key.lowercased() {
            case "expires":
                if let date = CookieDate.parse(attributeValue) { expires = date }
            case "max-age":
                if let seconds = maximumAgeSeconds(attributeValue) {
                    maximumAge =
                        seconds <= 0
                        ? .distantPast : now.addingTimeInterval(TimeInterval(min(seconds, 400 * 86_400)))
                }
            case "domain":
                guard !attributeValue.isEmpty else { break }
                var domain = attributeValue.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                domainAttribute = domain
            case "path":
                path = attributeValue.hasPrefix("/") ? attributeValue : nil
                hasPathAttribute = true
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            default:
                break
            }
        }
        // A secure cookie set from plain http could overwrite one set over https (RFC 6265bis).
        if isSecure, url.scheme?.lowercased() != "https" { return nil }
        guard
            prefixAllows(
                name: name, isSecure: isSecure, hasDomain: domainAttribute != nil,
                path: hasPathAttribute ? path ?? CookieRules.defaultPath(for: url) : nil)
        else { return nil }
        var cookie = Cookie(
            name: name, value: value, domain: host, isHostOnly: true,
            path: path ?? CookieRules.defaultPath(for: url), isSecure: isSecure, isHTTPOnly: isHTTPOnly,
            expires: maximumAge ?? expires, created: now)
        if let domainAttribute {
            // Only the host itself or a domain it is in.
            guard CookieRules.domain(host, matches: domainAttribute) else { return nil }
            if PublicSuffix.contains(domainAttribute) {
                // RFC 6265 §5.3 step 5: a cookie for a public suffix ("co.uk", "github.io") would
                // reach every site under it; only the suffix's own host may set one, for itself.
                guard domainAttribute == host else { return nil }
            } else {
                cookie.domain = domainAttribute
                cookie.isHostOnly = false
            }
        }
        return cookie
    }

    /// Whether the cookie keeps the promise its name's prefix makes (RFC 6265bis §4.1.3): a
    /// `__Secure-` cookie is `Secure` (so it came over https, which `Secure` requires), and a
    /// `__Host-` cookie is besides host-only (no `Domain`) with a `Path` of `/`, so no sibling
    /// subdomain or plain http page can plant one. The prefixes are matched ignoring case, as
    /// 6265bis's current drafts and browsers do, so `__HOST-` cannot slip past a server that
    /// reads names case-insensitively. `path` is nil without a `Path` attribute.
    private static func prefixAllows(name: String, isSecure: Bool, hasDomain: Bool, path: String?) -> Bool {
        if hasPrefixIgnoringCase(name, "__Secure-") { return isSecure }
        if hasPrefixIgnoringCase(name, "__Host-") { return isSecure && !hasDomain && path == "/" }
        return true
    }

    /// ASCII case-insensitive: `lowercased()` would also fold non-ASCII letters (the Kelvin
    /// sign's lower case is `k`), which the drafts do not.
    private static func hasPrefixIgnoringCase(_ text: String, _ prefix: String) -> Bool {
        let head = text.utf8.prefix(prefix.utf8.count)
        return head.count == prefix.utf8.count
            && zip(head, prefix.utf8).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// The separate `Set-Cookie` lines of a header value that joined several with `, ` (as
    /// `HTTPURLResponse` does): a comma starts a new cookie only where a `name=` follows, and
    /// never inside an `Expires` date (`Expires=Wed, 21 Oct 2026 07:28:00 GMT`).
    package static func splitJoined(_ value: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var lastPiece: Substring = ""
        for piece in split(value[...], at: ",") {
            // A date's comma follows `Expires=` and a day name, all after the previous comma:
            // only the last piece is looked at, so a value of many commas is read in linear time.
            let inDate =
                lastPiece.lowercased().range(of: #"expires=\s*[a-z]{3,9}$"#, options: .regularExpression)
                != nil
            if current.isEmpty {
                current = String(piece)
            } else if startsNewCookie(piece), !inDate {
                lines.append(current)
                current = String(piece)
            } else {
                current += "," + piece
            }
            lastPiece = piece
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { trimmed($0[...]) }.filter { !$0.isEmpty }
    }

    /// Whether the text after a comma begins `name=`: a token, then `=`, before any `;`.
    private static func startsNewCookie(_ piece: Substring) -> Bool {
        guard let (before, _) = cut(piece, at: "="), !before.unicodeScalars.contains(";") else {
            return false
        }
        let name = before.trimmingCharacters(in: .whitespaces)
        return !name.isEmpty && HTTPToken.isValid(name)
    }

    /// A control character (RFC 6265 §5.2 ignores such a cookie; sent back, a CR could split
    /// the request).
    private static func hasControlCharacters(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }

    /// A character canonically equivalent to `;` (U+037E GREEK QUESTION MARK, which NFC and NFD
    /// both turn into `;`). It is no separator here (the line is cut at scalars), but a server or
    /// proxy that normalizes the `Cookie` header sent back would read one there, and a cookie
    /// could forge another. `String.contains` compares characters under canonical equivalence.
    private static func hasSeparatorLookalike(_ text: String) -> Bool {
        text.contains(";")
    }

    private static func split(_ attribute: Substring) -> (String, String) {
        guard let (key, value) = cut(attribute, at: "=") else { return (trimmed(attribute), "") }
        return (trimmed(key), trimmed(value))
    }

    // Separators are found among Unicode scalars, never characters: a mark that joins the next
    // scalar into its character (U+0603 before `;` is one character) must not hide a `;`, or a
    // name could carry one back out in a `Cookie` header and forge a second cookie there.

    /// `text` cut at every `separator`.
    private static func split(_ text: Substring, at separator: Unicode.Scalar) -> [Substring] {
        text.unicodeScalars.split(separator: separator, omittingEmptySubsequences: false).map(Substring.init)
    }

    /// `text` before and after its first `separator`, or nil without one.
    private static func cut(_ text: Substring, at separator: Unicode.Scalar) -> (Substring, Substring)? {
        let scalars = text.unicodeScalars
        guard let index = scalars.firstIndex(of: separator) else { return nil }
        return (Substring(scalars[..<index]), Substring(scalars[scalars.index(after: index)...]))
    }

    /// A `Max-Age` value: an optional `-` and digits only (RFC 6265 §5.2.2); huge ones saturate.
    private static func maximumAgeSeconds(_ text: String) -> Int64? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if text.hasPrefix("-") { return -1 }
        return Int64(digits) ?? Int64.max
    }

    private static func trimmed(_ text: Substring) -> String {
        text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }
}
