import Foundation
import Osprey

/// `Set-Cookie` lines from a response of `https://www.example.com/a/b`, lines joined with commas
/// split back, and cookie dates.
enum SetCookieTarget {
    static let url = URL(string: "https://www.example.com/a/b")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ input: Data) {
        let text = String(decoding: input, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            check(SetCookie.parse(String(line), from: url, at: now))
        }
        for line in SetCookie.splitJoined(text) {
            precondition(!line.isEmpty)
            check(SetCookie.parse(line, from: url, at: now))
        }
        if let date = CookieDate.parse(text) {
            precondition(date.timeIntervalSince1970 > -11_644_473_600, "a year before 1601: \(date)")
        }
    }

    /// What a stored cookie must be: named, free of control characters (it goes back out in a
    /// `Cookie` header), for a domain this host is in, with an absolute path.
    private static func check(_ cookie: Cookie?) {
        guard let cookie else { return }
        precondition(!cookie.name.isEmpty)
        for text in [cookie.name, cookie.value] {
            precondition(!text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }, text.debugDescription)
        }
        // No `;` byte, nor a character canonically equal to one (U+037E, which normalizing turns
        // into `;`): either would split the `Cookie` header the cookie goes back out in.
        precondition(!cookie.name.utf8.contains(0x3B) && !cookie.value.utf8.contains(0x3B))
        precondition(!cookie.name.contains(";") && !cookie.value.contains(";"))
        precondition(cookie.domain == "www.example.com" || "www.example.com".hasSuffix("." + cookie.domain))
        precondition(cookie.domain.contains("."))
        precondition(cookie.path.hasPrefix("/"))
    }
}
