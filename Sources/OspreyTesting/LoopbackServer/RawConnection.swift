import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bare TCP client for tests that must control or see every byte, bypassing URLSession.
///
/// ```swift
/// let connection = try RawConnection(port: server.port)
/// try connection.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
/// let response = try connection.readResponse()
/// ```
///
/// Use it from one thread at a time.
public final class RawConnection {
    /// Why a read did not produce what was asked for.
    public enum Failure: Error, Equatable {
        /// Nothing more arrived within the timeout; carries what had arrived.
        case timedOut(received: Data)
        /// The server closed the connection first; carries what had arrived.
        case closedEarly(received: Data)
        /// The bytes are not an HTTP/1.1 response.
        case malformedResponse(String)
    }

    /// A response as read off the wire.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The header lines in order.
        public var headers: [LoopbackServer.HeaderField]
        /// The body with any chunked framing removed.
        public var body: Data
        /// The first value of a header, compared case-insensitively.
        public func value(forHeader name: String) -> String? { headers.firstValue(named: name) }
    }

    private var fd: Int32
    private var pending: [UInt8] = []

    /// Connects to `127.0.0.1:port`.
    /// - Throws: the socket error if the connection is refused.
    public init(port: UInt16) throws {
        fd = try Socket.connectToLoopback(port: port)
    }

    deinit {
        close()
    }

    /// Sends the UTF-8 bytes of `text` exactly as given.
    public func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    /// Sends `bytes` exactly as given.
    /// - Throws: ``Failure/timedOut(received:)`` if the server stops reading for `timeout` seconds.
    public func send(_ bytes: Data, timeout: TimeInterval = 10) throws {
        let array = [UInt8](bytes)
        var sent = 0
        while sent < array.count {
            let count = try array.withUnsafeBytes {
                try Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[sent...]))
            }
            if let count {
                sent += count
            } else if case .timedOut = Socket.wait(for: fd, writable: true, wakeFD: -1, timeout: timeout) {
                throw Failure.timedOut(received: Data())
            }
        }
    }

    /// Reads one response. Pass `toHead: true` when it answers a HEAD request (no body follows).
    /// - Throws: ``Failure`` when the response is incomplete within `timeout` or malformed.
    public func readResponse(toHead: Bool = false, timeout: TimeInterval = 10) throws -> Response {
        let deadline = Date().addingTimeInterval(timeout)
        let headEnd = try readUntil(deadline: deadline) { Self.find([13, 10, 13, 10], in: $0) }
        let headText = String(decoding: pending[0..<headEnd], as: UTF8.self)
        pending.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1])
        else {
            throw Failure.malformedResponse(headText)
        }
        let headers = try lines.map { line -> LoopbackServer.HeaderField in
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformedResponse(line) }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return LoopbackServer.HeaderField(String(line[..<colon]), value)
        }
        var response = Response(status: status, headers: headers, body: Data())
        if toHead || status < 200 || status == 204 || status == 304 { return response }
        if headers.firstValue(named: "Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try readChunkedBody(deadline: deadline)
        } else if let length = headers.firstValue(named: "Content-Length").flatMap(Int.init) {
            _ = try readUntil(deadline: deadline) { $0.count >= length ? length : nil }
            response.body = Data(pending[0..<length])
            pending.removeFirst(length)
        } else {
            response.body = try readUntilClosed(timeout: deadline.timeIntervalSinceNow)
        }
        return response
    }

    /// Reads until the server closes the connection; returns everything received.
    /// - Throws: ``Failure/timedOut(received:)`` if it stays open for `timeout` seconds.
    public func readUntilClosed(timeout: TimeInterval = 10) throws -> Data {
        let deadline = Date().addingTimeInterval(timeout)
        while try fill(deadline: deadline) {}
        defer { pending.removeAll() }
        return Data(pending)
    }

    /// Reads whatever arrives within `timeout` seconds (at least one byte unless it closes).
    public func receiveAvailable(timeout: TimeInterval = 10) throws -> Data {
        if pending.isEmpty { _ = try fill(deadline: Date().addingTimeInterval(timeout)) }
        defer { pending.removeAll() }
        return Data(pending)
    }

    /// Closes the connection. Further calls do nothing.
    public func close() {
        guard fd >= 0 else { return }
        #if canImport(Darwin)
            _ = Darwin.close(fd)
        #else
            _ = Glibc.close(fd)
        #endif
        fd = -1
    }

    private func readChunkedBody(deadline: Date) throws -> Data {
        var body = Data()
        while true {
            let lineEnd = try readUntil(deadline: deadline) { Self.find([13, 10], in: $0) }
            let sizeText = String(decoding: pending[0..<lineEnd], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText, radix: 16) else {
                throw Failure.malformedResponse("chunk size \(sizeText)")
            }
            pending.removeFirst(lineEnd + 2)
            if size == 0 {
                _ = try readUntil(deadline: deadline) { Self.find([13, 10], in: $0) == 0 ? 0 : nil }
                pending.removeFirst(2)
                return body
            }
            _ = try readUntil(deadline: deadline) { $0.count >= size + 2 ? size : nil }
            body.append(contentsOf: pending[0..<size])
            pending.removeFirst(size + 2)
        }
    }

    /// Reads until `found` returns a value for the buffered bytes.
    private func readUntil(deadline: Date, _ found: ([UInt8]) -> Int?) throws -> Int {
        while true {
            if let index = found(pending) { return index }
            guard try fill(deadline: deadline) else { throw Failure.closedEarly(received: Data(pending)) }
        }
    }

    /// Appends the next bytes to `pending`; false at end of stream.
    private func fill(deadline: Date) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, case .ready = Socket.wait(for: fd, wakeFD: -1, timeout: remaining) else {
                throw Failure.timedOut(received: Data(pending))
            }
            do {
                guard let count = try Socket.receive(fd, into: &buffer) else { continue }
                pending.append(contentsOf: buffer[0..<count])
                return count > 0
            } catch let failure as Socket.Failure where failure.code == ECONNRESET {
                return false
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }
}
