import Foundation

/// The lenient date reading of RFC 6265 §5.1.1, for `Expires`: tokens in any order, the first
/// time, day, month and year found win; two-digit years are 1970–2069.
package enum CookieDate {
    package static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(of: text) {
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = monthNumber(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // A day past the month's end (31 February) is invalid rather than rolled over.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            return nil
        }
        return date
    }

    /// Splits at the delimiters of §5.1.1: tab, space to `/`, `;` to `@`, `[` to `` ` ``, `{` to `~`.
    private static func tokens(of text: String) -> [Substring] {
        text.split { character in
            guard let value = character.asciiValue else { return false }
            return value == 0x09 || (0x20...0x2F).contains(value) || (0x3B...0x40).contains(value)
                || (0x5B...0x60).contains(value) || (0x7B...0x7E).contains(value)
        }
    }

    private static func parseTime(_ token: Substring) -> (Int, Int, Int)? {
        let fields = token.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        let numbers = fields.enumerated().compactMap { index, field -> Int? in
            let digits = index == 2 ? field.prefix { $0.isASCII && $0.isNumber } : field
            guard (1...2).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return nil
            }
            return Int(digits)
        }
        return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }

    /// The number at the start of `token`, when it has as many digits as allowed (anything may
    /// follow them).
    private static func leadingNumber(_ token: Substring, digits allowed: ClosedRange<Int>) -> Int? {
        let digits = token.prefix { $0.isASCII && $0.isNumber }
        guard allowed.contains(digits.count) else { return nil }
        return Int(digits)
    }

    private static func monthNumber(_ token: Substring) -> Int? {
        let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        return names.firstIndex(of: token.prefix(3).lowercased()).map { $0 + 1 }
    }
}
