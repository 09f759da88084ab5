import Foundation

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), names in lower
/// case, values unquoted. A directive that appears twice keeps its first value.
package struct CacheControl: Sendable {
    private var directives: [String: String?] = [:]

    package init(_ headers: HTTPHeaders) {
        for value in headers.values(for: "Cache-Control") {
            for item in Self.items(of: value) {
                let parts = item.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard let name = parts.first?.lowercased(), !name.isEmpty, directives[name] == nil else {
                    continue
                }
                let argument = parts.count > 1 ? Self.unquoted(parts[1]) : nil
                directives[name] = .some(argument)
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

    /// Comma-separated items, commas inside quoted strings left alone.
    private static func items(of value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                items.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        items.append(current)
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if !escaped && character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }
}
