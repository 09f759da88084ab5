import Foundation
import Osprey

/// Parts made of the input's bytes (names, file names and contents a user's data may fill),
/// encoded, then read back the way a server splits a multipart body (RFC 2046 §5.1.1): every
/// part must come back whole, with its header lines and no more.
enum MultipartTarget {
    static func run(_ input: Data) {
        // NUL-separated fields: an optional fixed boundary, then name, file name and data for
        // each part.
        var fields = input.split(separator: 0, omittingEmptySubsequences: false).map { Data($0) }
        let fixed = fields.isEmpty ? nil : String(decoding: fields.removeFirst(), as: UTF8.self)
        var parts: [Part] = []
        while fields.count >= 3, parts.count < 4 {
            let name = String(decoding: fields.removeFirst(), as: UTF8.self)
            let filename = String(decoding: fields.removeFirst(), as: UTF8.self)
            parts.append(
                Part(name: name, data: fields.removeFirst(), filename: filename.isEmpty ? nil : filename))
        }
        let boundary = fixed.flatMap { isUsableBoundary($0) ? $0 : nil }
        let encoded: (body: Data, boundary: String)
        do {
            encoded = try MultipartEncoder.encode(parts, boundary: boundary)
        } catch {
            // Refused only when a fixed boundary is inside a part.
            precondition(
                boundary.map { fixed in parts.contains { $0.data.range(of: Data(fixed.utf8)) != nil } }
                    ?? false)
            return
        }
        let read = split(encoded.body, boundary: encoded.boundary)
        precondition(read.count == parts.count, "\(parts.count) parts came back as \(read.count)")
        for (part, (headerLines, data)) in zip(parts, read) {
            precondition(data == part.data, "a part's data changed")
            let expected = part.mimeType == nil ? 1 : 2
            precondition(headerLines.count == expected, "header lines: \(headerLines)")
            // By bytes: a name starting with a combining mark makes one character with the quote.
            precondition(headerLines[0].utf8.starts(with: "Content-Disposition: form-data; name=\"".utf8))
        }
    }

    /// RFC 2046's boundary: 1 to 70 of its characters, not ending with a space.
    private static func isUsableBoundary(_ text: String) -> Bool {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        return (1...70).contains(text.count) && text.allSatisfy(allowed.contains) && text.last != " "
    }

    /// The parts of `body` as a receiver finds them: header lines and data of each.
    private static func split(_ body: Data, boundary: String) -> [([String], Data)] {
        let delimiter = Data("\r\n--\(boundary)".utf8)
        // The body starts with the first delimiter line, without its leading CRLF.
        guard body.starts(with: Data("--\(boundary)\r\n".utf8)) else { return [] }
        var rest = Data(Data("\r\n".utf8) + body)
        var parts: [([String], Data)] = []
        while let start = rest.range(of: delimiter) {
            let after = rest[start.upperBound...]
            if after.starts(with: Data("--".utf8)) { break }
            guard after.starts(with: Data("\r\n".utf8)) else { return [] }
            let content = after.dropFirst(2)
            guard let end = content.range(of: delimiter),
                let headEnd = content[..<end.lowerBound].range(of: Data("\r\n\r\n".utf8))
            else { return [] }
            let head = String(decoding: content[..<headEnd.lowerBound], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            parts.append((lines, Data(content[headEnd.upperBound..<end.lowerBound])))
            rest = Data(content[end.lowerBound...])
        }
        return parts
    }
}
