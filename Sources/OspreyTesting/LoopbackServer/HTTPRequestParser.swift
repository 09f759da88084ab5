import Foundation

/// An incremental, strict HTTP/1.1 request parser (RFC 9112) for the loopback server.
///
/// Bytes go in with `append(_:)`; complete requests come out of `nextRequest()`. It is strict on
/// purpose: the tests that use it must be able to tell exactly what a client put on the wire, so
/// anything a lenient server would "fix up" (bare LF, folded headers, conflicting lengths,
/// control characters) is refused with the status a careful server would send.
struct HTTPRequestParser {
    /// A request whose head and body have fully arrived.
    struct Parsed {
        var method: String
        var target: String
        var version: String
        var headers: [LoopbackServer.HeaderField]
        var body: [UInt8]
        var raw: [UInt8]
        var keepAlive: Bool
        /// The body's length, also when its bytes were discarded.
        var bodyLength: Int
    }

    /// Why the bytes received are not an acceptable request; carries the status to answer with.
    struct Rejection: Error, Equatable {
        var status: Int
        var reason: String
    }

    private struct Head {
        var method: String
        var target: String
        var version: String
        var headers: [LoopbackServer.HeaderField]
        var keepAlive: Bool
        var expectsContinue: Bool
    }

    private enum Phase {
        case head
        case fixedBody(Head, length: Int)
        case chunkSize(Head)
        case chunkData(Head, size: Int)
        case trailers(Head)
    }

    let maximumHeadBytes: Int
    let maximumBodyBytes: Int
    /// Count bodies without keeping them (for uploads of any size), fixed-length and chunked.
    let discardsBodies: Bool
    private var discardedBytes = 0

    private var buffer: [UInt8] = []
    private var cursor = 0
    private var scannedForHeadEnd = 0
    private var body: [UInt8] = []
    private var phase = Phase.head

    init(maximumHeadBytes: Int, maximumBodyBytes: Int, discardsBodies: Bool = false) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumBodyBytes = maximumBodyBytes
        self.discardsBodies = discardsBodies
    }

    /// True while a complete head has asked for `100 Continue` and its body has not started.
    var isAwaitingContinue: Bool {
        switch phase {
        case .fixedBody(let head, _), .chunkSize(let head):
            return head.expectsContinue && buffer.count == cursor && body.isEmpty
        default:
            return false
        }
    }

    /// The bytes received and not yet returned as part of a complete request.
    var bufferedBytes: [UInt8] { buffer }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next complete request, nil if more bytes are needed, or throws a rejection.
    mutating func nextRequest() throws(Rejection) -> Parsed? {
        while true {
            switch phase {
            case .head:
                // RFC 9112 §2.2: a server should ignore empty lines received before a request line.
                while buffer.count >= 2, buffer[0] == 13, buffer[1] == 10 { buffer.removeFirst(2) }
                let headEnd = findHeadEnd()
                guard (headEnd ?? buffer.count) <= maximumHeadBytes else {
                    throw Rejection(status: 431, reason: "request head exceeds \(maximumHeadBytes) bytes")
                }
                guard let headEnd else { return nil }
                let head = try Self.parseHead(buffer[0..<headEnd])
                cursor = headEnd + 4
                phase = try Self.bodyPhase(for: head, maximumBodyBytes: maximumBodyBytes)
                if case .head = phase { return complete(head) }
            case .fixedBody(let head, let length) where discardsBodies:
                // Drop what has arrived; the head stays as the request's raw bytes.
                let take = min(length, buffer.count - cursor)
                buffer.removeSubrange(cursor..<cursor + take)
                discardedBytes += take
                guard take == length else {
                    phase = .fixedBody(head, length: length - take)
                    return nil
                }
                return complete(head)
            case .fixedBody(let head, let length):
                guard buffer.count - cursor >= length else { return nil }
                body.append(contentsOf: buffer[cursor..<cursor + length])
                cursor += length
                return complete(head)
            case .chunkSize(let head):
                guard let lineEnd = findCRLF(from: cursor) else {
                    if buffer.count - cursor > 1024 {
                        throw Rejection(status: 400, reason: "chunk size line too long")
                    }
                    return nil
                }
                let size = try Self.parseChunkSize(buffer[cursor..<lineEnd])
                cursor = lineEnd + 2
                guard size <= maximumBodyBytes - (body.count + discardedBytes) else {
                    throw Rejection(status: 413, reason: "body exceeds \(maximumBodyBytes) bytes")
                }
                phase = size == 0 ? .trailers(head) : .chunkData(head, size: size)
            case .chunkData(let head, let size) where discardsBodies:
                // Drop the chunk's bytes as they arrive: only its size line and CRLF stay in the
                // request's raw bytes.
                let take = min(size, buffer.count - cursor)
                buffer.removeSubrange(cursor..<cursor + take)
                discardedBytes += take
                guard take == size, buffer.count - cursor >= 2 else {
                    phase = .chunkData(head, size: size - take)
                    return nil
                }
                guard buffer[cursor] == 13, buffer[cursor + 1] == 10 else {
                    throw Rejection(status: 400, reason: "chunk data not followed by CRLF")
                }
                cursor += 2
                phase = .chunkSize(head)
            case .chunkData(let head, let size):
                guard buffer.count - cursor >= size + 2 else { return nil }
                guard buffer[cursor + size] == 13, buffer[cursor + size + 1] == 10 else {
                    throw Rejection(status: 400, reason: "chunk data not followed by CRLF")
                }
                body.append(contentsOf: buffer[cursor..<cursor + size])
                cursor += size + 2
                phase = .chunkSize(head)
            case .trailers(let head):
                guard let lineEnd = findCRLF(from: cursor) else {
                    if buffer.count - cursor > maximumHeadBytes {
                        throw Rejection(status: 431, reason: "trailers too large")
                    }
                    return nil
                }
                let isLastLine = lineEnd == cursor
                cursor = lineEnd + 2
                if isLastLine { return complete(head) }
            }
        }
    }

    private mutating func complete(_ head: Head) -> Parsed {
        let parsed = Parsed(
            method: head.method,
            target: head.target,
            version: head.version,
            headers: head.headers,
            body: body,
            raw: Array(buffer[0..<cursor]),
            keepAlive: head.keepAlive,
            bodyLength: body.count + discardedBytes
        )
        discardedBytes = 0
        buffer.removeFirst(cursor)
        cursor = 0
        scannedForHeadEnd = 0
        body = []
        phase = .head
        return parsed
    }

    private mutating func findHeadEnd() -> Int? {
        var index = max(0, scannedForHeadEnd - 3)
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10
            {
                return index
            }
            index += 1
        }
        scannedForHeadEnd = buffer.count
        return nil
    }

    private func findCRLF(from start: Int) -> Int? {
        var index = start
        while index + 1 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    private static func bodyPhase(for head: Head, maximumBodyBytes: Int) throws(Rejection) -> Phase {
        let encodings = head.headers.allValues(named: "Transfer-Encoding")
        let lengths = head.headers.allValues(named: "Content-Length")
        if !encodings.isEmpty {
            // A request with both framings is the classic smuggling vector (RFC 9112 §6.3).
            guard lengths.isEmpty else {
                throw Rejection(status: 400, reason: "both Transfer-Encoding and Content-Length")
            }
            guard encodings.count == 1, encodings[0].lowercased() == "chunked" else {
                throw Rejection(status: 501, reason: "unsupported Transfer-Encoding \(encodings)")
            }
            return .chunkSize(head)
        }
        guard let first = lengths.first else { return .head }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.allSatisfy(isDigit),
            let length = Int(first)
        else {
            throw Rejection(status: 400, reason: "invalid Content-Length \(lengths)")
        }
        guard length <= maximumBodyBytes else {
            throw Rejection(status: 413, reason: "body exceeds \(maximumBodyBytes) bytes")
        }
        return length == 0 ? .head : .fixedBody(head, length: length)
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(Rejection) -> Head {
        let lines = split(bytes, separator: [13, 10])
        for line in lines where line.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            throw Rejection(status: 400, reason: "bare CR, LF or NUL in the request head")
        }
        let requestLine = lines[0].split(separator: 32, omittingEmptySubsequences: false)
        guard requestLine.count == 3 else { throw Rejection(status: 400, reason: "malformed request line") }
        let method = requestLine[0]
        let target = requestLine[1]
        let version = String(decoding: requestLine[2], as: UTF8.self)
        guard !method.isEmpty, method.allSatisfy(isTokenCharacter) else {
            throw Rejection(status: 400, reason: "method is not a token")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw Rejection(status: 400, reason: "invalid request target")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            let looksLikeHTTP = version.hasPrefix("HTTP/") && version.count == 8
            throw Rejection(
                status: looksLikeHTTP ? 505 : 400,
                reason: "unsupported protocol version \(version)"
            )
        }
        var headers: [LoopbackServer.HeaderField] = []
        for line in lines.dropFirst() {
            if line.first == 32 || line.first == 9 {
                throw Rejection(status: 400, reason: "obsolete line folding")
            }
            guard let colon = line.firstIndex(of: 58) else {
                throw Rejection(status: 400, reason: "header line without a colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
                throw Rejection(status: 400, reason: "header name is not a token")
            }
            var value = line[(colon + 1)...]
            while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
            while let last = value.last, last == 32 || last == 9 { value = value.dropLast() }
            guard value.allSatisfy({ $0 == 9 || $0 >= 32 && $0 != 127 }) else {
                throw Rejection(status: 400, reason: "control character in a header value")
            }
            headers.append(
                .init(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        if version == "HTTP/1.1", headers.allValues(named: "Host").count != 1 {
            throw Rejection(status: 400, reason: "HTTP/1.1 request without exactly one Host header")
        }
        let connection = headers.allValues(named: "Connection").joined(separator: ",").lowercased()
        let keepAlive =
            version == "HTTP/1.1"
            ? !connection.contains("close")
            : connection.contains("keep-alive")
        let expectsContinue = headers.firstValue(named: "Expect")?.lowercased() == "100-continue"
        return Head(
            method: String(decoding: method, as: UTF8.self),
            target: String(decoding: target, as: UTF8.self),
            version: version,
            headers: headers,
            keepAlive: keepAlive,
            expectsContinue: expectsContinue
        )
    }

    private static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(Rejection) -> Int {
        let digits = line.prefix { $0 != 59 }  // extensions after ';' are allowed and ignored
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(isHexDigit),
            let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
        else {
            throw Rejection(status: 400, reason: "invalid chunk size")
        }
        return size
    }

    private static func split(_ bytes: ArraySlice<UInt8>, separator: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == separator[0], bytes[index + 1] == separator[1] {
                parts.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        parts.append(bytes[start..<bytes.endIndex])
        return parts
    }
}

/// RFC 9110 §5.6.2 `tchar`.
func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
}
