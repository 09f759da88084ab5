import Foundation

extension HAR {
    /// A `multipart/form-data` body read back into its parts, so an archive lists the fields and
    /// files of an upload (`postData.params`), a redaction can blank a field inside it, and a
    /// cassette can compare two uploads whose random boundaries differ.
    ///
    /// Bodies come from this process or from a HAR file of any origin: the reader never traps,
    /// and a body that is not well-formed multipart reads as nil (it is then kept as bytes).
    package struct Multipart: Equatable {
        package struct Part: Equatable {
            /// The header lines as they were, for writing the part again.
            package var headerBlock: Data
            package var name: String
            package var fileName: String?
            package var contentType: String?
            package var content: Data
        }

        package var boundary: String
        package var parts: [Part]

        /// The boundary of a `multipart/…` media type, if it has one.
        package static func boundary(of mimeType: String) -> String? {
            let pieces = mimeType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.first?.lowercased().hasPrefix("multipart/") == true else { return nil }
            for piece in pieces.dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.utf8.count > 200 ? nil : value
            }
            return nil
        }

        /// Reads `body`, or nil when it is not multipart with this boundary.
        package init?(_ body: Data, mimeType: String) {
            guard let boundary = Self.boundary(of: mimeType) else { return nil }
            let bytes = [UInt8](body)
            let delimiter = Array("--\(boundary)".utf8)
            let separator = Array("\r\n\r\n".utf8)
            // A part's content ends at the CRLF before the next delimiter.
            let closing = Array("\r\n".utf8) + delimiter
            // The first delimiter opens the body (a preamble before it is allowed and dropped).
            guard var position = Self.find(delimiter, in: bytes, from: 0, atLineStart: true) else {
                return nil
            }
            var parts: [Part] = []
            while true {
                position += delimiter.count
                if bytes[position...].starts(with: Array("--".utf8)) { break }
                guard bytes[position...].starts(with: Array("\r\n".utf8)) else { return nil }
                position += 2
                guard let headerEnd = Self.find(separator, in: bytes, from: position, atLineStart: false),
                    let end = Self.find(closing, in: bytes, from: headerEnd + 4, atLineStart: false)
                else { return nil }
                let headerBlock = Data(bytes[position..<headerEnd])
                guard let part = Self.part(headers: headerBlock, content: Data(bytes[(headerEnd + 4)..<end]))
                else { return nil }
                parts.append(part)
                position = end + 2
            }
            self.boundary = boundary
            self.parts = parts
        }

        /// The body written again with the same boundary.
        package var body: Data {
            var body = Data()
            for part in parts {
                body.append(Data("--\(boundary)\r\n".utf8))
                body.append(part.headerBlock)
                body.append(Data("\r\n\r\n".utf8))
                body.append(part.content)
                body.append(Data("\r\n".utf8))
            }
            body.append(Data("--\(boundary)--\r\n".utf8))
            return body
        }

        /// The archive's list of the parts: fields with their values, files with their names and
        /// types (their bytes stay in the body's text).
        package var params: [Param] {
            parts.map { part in
                Param(
                    name: part.name,
                    value: part.fileName == nil ? String(data: part.content, encoding: .utf8) : nil,
                    fileName: part.fileName, contentType: part.contentType)
            }
        }

        private static func part(headers block: Data, content: Data) -> Part? {
            guard let text = String(data: block, encoding: .utf8) else { return nil }
            var name: String?
            var fileName: String?
            var contentType: String?
            for line in text.components(separatedBy: "\r\n") {
                let pair = line.split(separator: ":", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                let value = pair[1].trimmingCharacters(in: .whitespaces)
                switch pair[0].lowercased() {
                case "content-disposition":
                    name = parameter("name", of: value)
                    fileName = parameter("filename", of: value)
                case "content-type":
                    contentType = value
                default:
                    continue
                }
            }
            guard let name else { return nil }
            return Part(
                headerBlock: block, name: name, fileName: fileName, contentType: contentType, content: content
            )
        }

        /// A quoted parameter of a `Content-Disposition` value, as written (`%22` stays).
        private static func parameter(_ wanted: String, of value: String) -> String? {
            for piece in value.split(separator: ";").dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard pair.count == 2, pair[0].lowercased() == wanted else { continue }
                var found = pair[1]
                if found.count >= 2, found.hasPrefix("\""), found.hasSuffix("\"") {
                    found = String(found.dropFirst().dropLast())
                }
                return found
            }
            return nil
        }

        /// Where `needle` next starts in `bytes` at or after `start`; with `atLineStart`, only
        /// at the very start or right after a CRLF (a delimiter must begin a line).
        private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, atLineStart: Bool)
            -> Int?
        {
            guard !needle.isEmpty, start >= 0, bytes.count >= needle.count else { return nil }
            var index = start
            while index <= bytes.count - needle.count {
                if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle),
                    !atLineStart || index == 0
                        || (index >= 2 && bytes[index - 2] == 13 && bytes[index - 1] == 10)
                {
                    return index
                }
                index += 1
            }
            return nil
        }
    }
}
