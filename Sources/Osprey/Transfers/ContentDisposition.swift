import Foundation

/// Reads the file name a `Content-Disposition` header suggests (RFC 6266), and makes any name
/// safe to use inside a folder.
package enum ContentDisposition {
    /// The suggested file name: `filename*` (RFC 8187, UTF-8) when present, else `filename`.
    package static func filename(in header: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(of: header) {
            switch parameter.name.lowercased() {
            case "filename*": extended = decodeExtended(parameter.value)
            case "filename": plain = parameter.value
            default: break
            }
        }
        return extended ?? plain
    }

    /// A name that stays inside its folder: the last path component only (either separator),
    /// no NUL or control characters, not empty, `.` or `..`, at most 255 UTF-8 bytes (the
    /// extension kept); `fallback` when nothing usable is left.
    package static func safeFilename(_ raw: String, fallback: String) -> String {
        // Split by scalars, not characters: a mark that prepends to the next scalar (U+070F)
        // makes `x/` one character, which a character-wise split leaves whole (fuzzing found it).
        let lastComponent =
            raw.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last
            ?? Substring.UnicodeScalarView()
        var name = String(
            String.UnicodeScalarView(
                lastComponent.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != ":" }))
        name = name.trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        guard !name.isEmpty else { return fallback }
        return truncated(name, toBytes: 255)
    }

    private static func truncated(_ name: String, toBytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        let dot = name.lastIndex(of: ".")
        let ext = dot.map { String(name[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
        var stem = ext.isEmpty ? name : String(name[..<dot!])
        while stem.utf8.count + ext.utf8.count > limit { stem.removeLast() }
        return stem + ext
    }

    /// `name=value` pairs after the disposition type; quoted values unescaped.
    private static func parameters(of header: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var rest = Substring(header)
        // Skip the disposition type.
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            result.append((name, value))
        }
        return result
    }

    /// `UTF-8''na%C3%AFve.txt` → `naïve.txt`.
    private static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return String(parts[2]).removingPercentEncoding
    }
}
