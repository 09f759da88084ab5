import Foundation

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), names in lower
/// case, values unquoted. A directive that appears twice keeps its first value.
package struct CacheControl: Sendable {
    private var directives: [String: String?] = [:]

    package init(_ headers: HTTPHeaders) {
        for value in headers.values(for: "Cache-Control") {
            for item in Self.items(of: value) {
                let (rawName, rawArgument) = Self.nameAndArgument(of: item)
                let name = rawName.lowercased()
                guard !name.isEmpty, directives[name] == nil else { continue }
                directives[name] = .some(rawArgument.map(Self.unquoted))
            }
        }
        // HTTP/1.0's `Pragma: no-cache` stands for `Cache-Control: no-cache` when there is none
        // (RFC 9111 §5.4).
        if headers.values(for: "Cache-Control").isEmpty,
            headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") })
        {
            directives["no-cache"] = .some(nil)
        }
    }

    /// Whether the directive is present (with or without an argument).
    package func has(_ name: String) -> Bool { directives[name] != nil }

    /// Whether the directive is present with an argument (`max-stale=60`, not `max-stale`).
    package func hasArgument(_ name: String) -> Bool {
        guard let argument = directives[name] else { return false }
        return argument != nil
    }

    /// A directive's delta-seconds argument; nil when it is absent or not a number (RFC 9111
    /// §1.2.2: a number too large for the cache counts as 2^31).
    package func seconds(_ name: String) -> TimeInterval? {
        guard let argument = directives[name], let argument else { return nil }
        return CachedResponse.deltaSeconds(argument)
    }

    var noStore: Bool { has("no-store") }
    var noCache: Bool { has("no-cache") }
    var isPublic: Bool { has("public") }
    var onlyIfCached: Bool { has("only-if-cached") }

    // Read scalar by scalar, never character by character: a mark that joins the next scalar
    // into its character (U+0603 before `,`) must not hide a separator.

    /// Comma-separated items, commas inside quoted strings left alone.
    private static func items(of value: String) -> [String] {
        var items: [String] = []
        var current = String.UnicodeScalarView()
        var quoted = false
        var escaped = false
        for scalar in value.unicodeScalars {
            if escaped {
                escaped = false
            } else if quoted && scalar == "\\" {
                escaped = true
            } else if scalar == "\"" {
                quoted.toggle()
            } else if scalar == "," && !quoted {
                items.append(String(current))
                current = String.UnicodeScalarView()
                continue
            }
            current.append(scalar)
        }
        items.append(String(current))
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// An item's name and its argument, if any (split at the first `=`).
    private static func nameAndArgument(of item: String) -> (String, String?) {
        let scalars = item.unicodeScalars
        guard let equals = scalars.firstIndex(of: "=") else { return (item, nil) }
        return (
            String(scalars[..<equals]).trimmingCharacters(in: .whitespaces),
            String(scalars[scalars.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        )
    }

    private static func unquoted(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else { return text }
        var result = String.UnicodeScalarView()
        var escaped = false
        for scalar in scalars.dropFirst().dropLast() {
            if !escaped && scalar == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(scalar)
        }
        return String(result)
    }
}
