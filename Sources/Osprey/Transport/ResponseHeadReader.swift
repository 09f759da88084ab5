/// Reads a response head line by line, as libcurl hands it over (each line with its line end):
/// the status line, the fields (repeated names joined with `, `, as FoundationNetworking does,
/// and also kept line by line for `Set-Cookie`), and the blank line that ends it. An interim
/// `1xx` head is forgotten when the next status line comes.
///
/// Bytes here are the server's: any of them must give a head or an error, never a crash.
package struct ResponseHeadReader {
    /// What a line meant.
    package enum Step: Equatable {
        /// More lines are needed.
        case needMore
        /// A blank line ended a final head (status 200 or more, or an accepted 101).
        case finalHead
        /// The status line cannot be read.
        case invalidStatusLine
    }

    /// The status line's version (`HTTP/1.1`, `HTTP/2`) and code, once one arrived.
    package private(set) var status: (version: String, code: Int)?
    /// The fields of the current head in order, as sent (names as spelled, values trimmed).
    package private(set) var lines: [(name: String, value: String)] = []

    /// Whether a `101 Switching Protocols` head is final (an upgrade was asked for): otherwise
    /// it is interim, like every `1xx`, and forgotten when the next status line comes.
    package var acceptsSwitchingProtocols = false

    package init() {}

    /// Takes one line (its `\r\n` or `\n` may be included).
    package mutating func take(_ bytes: UnsafeRawBufferPointer) -> Step {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = bytes[..<end]
        guard !line.isEmpty else {
            guard let status, status.code >= 200 || (status.code == 101 && acceptsSwitchingProtocols) else {
                return .needMore
            }
            return .finalHead
        }
        if line.starts(with: "HTTP/".utf8) {
            // "HTTP/1.1 200 OK", "HTTP/2 200": three digits, as RFC 9110 §15 writes them.
            let version = line.prefix { $0 != 0x20 }
            let digits = line[version.endIndex...].drop { $0 == 0x20 }.prefix { $0 != 0x20 }
            guard digits.count == 3, digits.allSatisfy({ (0x30...0x39).contains($0) }),
                let code = Int(String(decoding: digits, as: UTF8.self)), code >= 100
            else { return .invalidStatusLine }
            status = (String(decoding: version, as: UTF8.self), code)
            lines = []
            return .needMore
        }
        // A line without a colon (obsolete folding) is ignored.
        guard let colon = line.firstIndex(of: 0x3A) else { return .needMore }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var value = line[(colon + 1)...].drop(while: isBlank)
        while let last = value.last, isBlank(last) { value = value.dropLast() }
        lines.append(
            (String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
        return .needMore
    }

    /// Whether the head has a field called `name` (any case).
    package func has(_ name: String) -> Bool {
        lines.contains { HTTPHeaders.same($0.name, name) }
    }

    /// Every value of the field called `name` (any case), line by line.
    package func values(of name: String) -> [String] {
        lines.filter { HTTPHeaders.same($0.name, name) }.map(\.value)
    }
}
