import Foundation

/// Cuts a body arriving in pieces into text lines ended by CRLF, LF or CR (a CR at the end of one
/// piece and a LF at the start of the next are one line end), each decoded in the response's
/// charset. The last line need not end with a line end.
package struct LineSplitter: Sendable {
    private var line: [UInt8] = []
    private var afterCR = false
    private let encoding: String.Encoding

    /// The longest line kept (1 MiB): a longer one is cut, its rest ignored.
    package static let maximumLineBytes = 1 << 20

    /// - Parameter encoding: The charset lines are decoded with; invalid bytes become U+FFFD.
    package init(encoding: String.Encoding = .utf8) {
        self.encoding = encoding
    }

    /// The lines `bytes` completes, in order.
    package mutating func feed(_ bytes: some Collection<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A, 0x0D:
                lines.append(decode(line))
                line.removeAll(keepingCapacity: true)
                afterCR = byte == 0x0D
            default:
                if line.count < Self.maximumLineBytes { line.append(byte) }
            }
        }
        return lines
    }

    /// The last line, when the body did not end with a line end.
    package mutating func finish() -> String? {
        defer { line = [] }
        return line.isEmpty ? nil : decode(line)
    }

    private func decode(_ bytes: [UInt8]) -> String {
        if encoding == .utf8 { return String(decoding: bytes, as: UTF8.self) }
        return String(bytes: bytes, encoding: encoding) ?? String(decoding: bytes, as: UTF8.self)
    }

    /// The charset a `Content-Type` names (`text/plain; charset=iso-8859-1`), UTF-8 when it names
    /// none or one Osprey does not know (charsets whose lines are not split at the bytes CR and
    /// LF, such as UTF-16, are not read as lines).
    package static func encoding(ofContentType contentType: String?) -> String.Encoding {
        guard let contentType else { return .utf8 }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard pair.count == 2, pair[0] == "charset" else { continue }
            switch pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) {
            case "iso-8859-1", "latin1", "iso_8859-1": return .isoLatin1
            case "us-ascii", "ascii": return .ascii
            case "windows-1252", "cp1252": return .windowsCP1252
            default: return .utf8
            }
        }
        return .utf8
    }
}
