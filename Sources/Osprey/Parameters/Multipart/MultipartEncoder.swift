import Foundation

/// Writes a `multipart/form-data` body (RFC 7578, RFC 2046 §5.1).
///
/// Names and file names are escaped as HTML forms do (`"` → `%22`, CR → `%0D`, LF → `%0A`), so
/// no value can end the header line or start another part; a non-ASCII file name also gets an
/// RFC 5987 `filename*=UTF-8''…` next to an ASCII fallback. The boundary is random (144 bits)
/// and checked against the content.
package struct MultipartEncoder {
    /// A fresh boundary: `osprey-` and 24 random bytes in base 32 (RFC 2046 characters, 46 long).
    static func makeBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var bits = 0
        var value = 0
        var text = "osprey-"
        for byte in bytes {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                text.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        return text
    }

    /// A boundary that no in-memory part contains (file contents are not read for this: a
    /// 144-bit random boundary appearing in them is not a practical risk).
    /// - Throws: ``APIError/encodingFailed(reason:underlying:)`` when a fixed boundary appears
    ///   in a part's data: that part could end the body early or forge parts of its own.
    static func boundary(for parts: [Part], fixed: String?) throws -> String {
        if let fixed {
            if let part = parts.first(where: { $0.data.range(of: Data(fixed.utf8)) != nil }) {
                throw APIError.encodingFailed(
                    reason: "the part \(part.name.debugDescription) contains the fixed boundary",
                    underlying: nil)
            }
            return fixed
        }
        var boundary = makeBoundary()
        while parts.contains(where: { $0.data.range(of: Data(boundary.utf8)) != nil }) {
            boundary = makeBoundary()
        }
        return boundary
    }

    /// The body for `parts`, with a boundary that none of them contains.
    /// - Parameter boundary: A fixed boundary (tests); a random one otherwise.
    package static func encode(_ parts: [Part], boundary fixed: String? = nil) throws -> (
        body: Data, boundary: String
    ) {
        let boundary = try boundary(for: parts, fixed: fixed)
        var body = Data()
        for part in parts {
            body.append(Data("--\(boundary)\r\n".utf8))
            body.append(Data(headerLines(for: part).utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return (body, boundary)
    }

    static func headerLines(for part: Part) -> String {
        var disposition = "form-data; name=\"\(escape(part.name))\""
        if let filename = part.filename {
            disposition += "; filename=\"\(escape(asciiFallback(filename)))\""
            if !filename.unicodeScalars.allSatisfy(\.isASCII) {
                disposition += "; filename*=UTF-8''\(PercentEncoding.encode(filename))"
            }
        }
        var lines = "Content-Disposition: \(disposition)\r\n"
        if let mimeType = part.mimeType {
            lines += "Content-Type: \(escapeHeaderValue(mimeType.rawValue))\r\n"
        }
        return lines + "\r\n"
    }

    /// HTML's form-data escaping of names and file names.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Non-ASCII characters replaced by `_` for the plain `filename` parameter.
    static func asciiFallback(_ filename: String) -> String {
        String(String.UnicodeScalarView(filename.unicodeScalars.map { $0.isASCII ? $0 : "_" }))
    }

    /// A media type with control characters removed, so it cannot add header lines.
    static func escapeHeaderValue(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }
}
