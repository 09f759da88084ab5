import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One accepted TCP connection: reads requests, runs their handlers, writes the responses
/// (with any scripted faults), until either side closes or the server stops.
struct LoopbackConnection {
    let fd: Int32
    let id: Int
    let core: ServerCore

    func serve() {
        defer {
            shutdown(fd, Int32(SHUT_WR))
            close(fd)
        }
        var parser = HTTPRequestParser(
            maximumHeadBytes: core.configuration.maximumHeadBytes,
            maximumBodyBytes: core.configuration.maximumBodyBytes,
            discardsBodies: core.configuration.discardsBodies
        )
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        var throttle = core.configuration.readRateLimit.map { ReadThrottle(bytesPerSecond: $0) }
        if let throttle {
            readBuffer = [UInt8](repeating: 0, count: throttle.readSize)
            // A small kernel buffer too, or it would soak up megabytes the throttle never paces;
            // not tiny, or TCP's window updates would slow the reader below its rate.
            var size: Int32 = 64 * 1024
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var sentContinue = false
        var bytesRead = 0
        while true {
            do {
                while let parsed = try parser.nextRequest() {
                    sentContinue = false
                    guard respond(to: parsed, leftover: { parser.bufferedBytes }) else { return }
                }
            } catch {
                core.record(
                    LoopbackServer.Rejection(
                        status: error.status, reason: error.reason, raw: Data(parser.bufferedBytes))
                )
                let response = LoopbackServer.Response.text(error.reason + "\n", status: error.status)
                _ = write(response, method: "GET", keepAlive: false)
                return
            }
            if parser.isAwaitingContinue, !sentContinue {
                sentContinue = true
                guard writeAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            if let pause = core.configuration.pausesReadingAfter, bytesRead >= pause,
                !waitUntilReadingResumes()
            {
                return
            }
            guard case .ready = Socket.wait(for: fd, wakeFD: core.wakeReadFD) else { return }
            do {
                // Up to the pause point, then (once resumed) without a cap.
                let pause = core.configuration.pausesReadingAfter ?? .max
                let allowed = bytesRead < pause ? pause - bytesRead : .max
                guard let count = try Socket.receive(fd, into: &readBuffer, maximum: allowed) else {
                    continue
                }
                guard count > 0 else { return }
                bytesRead += count
                core.recordReceived(count)
                parser.append(readBuffer[0..<count])
                if let delay = throttle?.delay(afterReading: count), delay > 0 {
                    // Only a server stop interrupts: the client's unread bytes must stay unread.
                    if case .woken = Socket.wait(for: -1, wakeFD: core.wakeReadFD, timeout: delay) { return }
                }
            } catch {
                return
            }
        }
    }

    /// Waits until a test calls `resumeReading()`; false if the server stops first.
    private func waitUntilReadingResumes() -> Bool {
        while !core.state.withLock({ $0.readingResumed }) {
            // Polled: a test resumes once, and 20 ms is well below anything it would notice.
            if case .woken = Socket.wait(for: -1, wakeFD: core.wakeReadFD, timeout: 0.02) { return false }
        }
        return true
    }

    /// Records the request, runs its handler and writes the answer; false when the connection must end.
    private func respond(to parsed: HTTPRequestParser.Parsed, leftover: () -> [UInt8]) -> Bool {
        var request = LoopbackServer.Request(
            method: parsed.method,
            target: parsed.target,
            version: parsed.version,
            headers: parsed.headers,
            body: Data(parsed.body),
            raw: Data(parsed.raw),
            bodyLength: parsed.bodyLength,
            connectionID: id
        )
        let route = core.handler(method: request.method, path: request.path)
        request.pathParameters = route?.1 ?? [:]
        request.clientPort = Socket.peerPort(fd)
        core.record(request)
        let response: LoopbackServer.Response
        if let handler = route?.0 {
            do {
                response = try handler(request)
            } catch {
                response = .text("handler failed: \(error)\n", status: 500)
            }
        } else {
            response = .text("no route for \(request.method) \(request.path)\n", status: 404)
        }
        if let session = response.webSocketSession {
            // The connection is the WebSocket's from here: the session reads what followed the
            // request, and the connection closes when it returns.
            guard write(response, method: request.method, keepAlive: true) else { return false }
            let peer = LoopbackServer.WebSocketPeer(
                fd: fd, wakeFD: core.wakeReadFD, leftover: leftover(),
                compression: response.webSocketCompression)
            try? session(peer)
            return false
        }
        return write(response, method: request.method, keepAlive: parsed.keepAlive)
    }

    /// Writes `head` a line (up to and including its LF) at a time, pausing before each line
    /// after the first; false when the connection or the server ended meanwhile.
    private func writeLines(of head: [UInt8], every interval: TimeInterval) -> Bool {
        var start = head.startIndex
        while start < head.endIndex {
            let end = head[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? head.endIndex
            if start > head.startIndex, !pause(for: interval) { return false }
            guard writeAll(Array(head[start..<end])) else { return false }
            start = end
        }
        return true
    }

    /// Writes a response, applying its faults; false when the connection must end afterwards.
    private func write(_ response: LoopbackServer.Response, method: String, keepAlive: Bool) -> Bool {
        let faults = response.faults
        if faults.headDelay > 0, !pause(for: faults.headDelay) { return false }
        let plan = ResponsePlan(response: response, method: method, keepAlive: keepAlive)
        if let interval = faults.headDrip {
            guard writeLines(of: plan.head, every: interval) else { return false }
        } else if let interval = faults.headByteDrip {
            for (index, byte) in plan.head.enumerated() {
                if index > 0, !pause(for: interval) { return false }
                guard writeAll([byte]) else { return false }
            }
        } else {
            guard writeAll(plan.head) else { return false }
        }
        if let producer = response.producer, method != "HEAD" {
            let writer = LoopbackServer.BodyWriter(
                send: { [self] data in
                    writeAll(Array("\(String(data.count, radix: 16))\r\n".utf8) + [UInt8](data) + [13, 10])
                },
                wait: { [self] seconds in pause(for: seconds) })
            producer(writer)
            if response.cutsStream { return false }
            return writeAll(Array("0\r\n\r\n".utf8)) && plan.keepsConnection
        }
        if let endless = faults.endless {
            return streamForever(endless.chunk, every: endless.interval)
        }
        if let repeated = response.repeatedBody, method != "HEAD" {
            let chunk = [UInt8](repeated.chunk)
            for _ in 0..<repeated.count {
                guard writeAll(chunk) else { return false }
            }
            return plan.keepsConnection
        }
        for segment in plan.segments {
            if segment.pauseBefore > 0, !pause(for: segment.pauseBefore) { return false }
            guard writeAll(plan.encode(segment.bytes)) else { return false }
        }
        if plan.closesEarly { return false }
        guard writeAll(plan.trailer) else { return false }
        if let trailing = faults.trailingBytes {
            if trailing.delay > 0, !pause(for: trailing.delay) { return false }
            guard writeAll([UInt8](trailing.bytes)) else { return false }
            core.state.withLock { $0.strayBytesSent += trailing.bytes.count }
        }
        return plan.keepsConnection
    }

    private func streamForever(_ chunk: Data, every interval: TimeInterval) -> Bool {
        let framed = Array("\(String(chunk.count, radix: 16))\r\n".utf8) + Array(chunk) + [13, 10]
        while true {
            guard writeAll(framed) else { return false }
            if interval > 0, !pause(for: interval) { return false }
        }
    }

    /// Waits `seconds` unless the server stops or the client hangs up first; false if either
    /// happened. Watching the client matters: a test that cancels a request during a delay must
    /// see the connection end.
    private func pause(for seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var watchedFD = fd
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return true }
            switch Socket.wait(for: watchedFD, wakeFD: core.wakeReadFD, timeout: remaining) {
            case .timedOut:
                return true
            case .woken:
                return false
            case .ready:
                switch Socket.peek(fd) {
                case .closed: return false
                case .data: watchedFD = -1  // pipelined bytes: leave them for later, stop watching
                case .nothing: continue
                }
            }
        }
    }

    /// Writes every byte unless the peer goes away or the server stops.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                Result { try Socket.send(fd, UnsafeRawBufferPointer(rebasing: buffer[sent...])) }
            }
            switch result {
            case .success(let count?):
                sent += count
            case .success(nil):
                guard case .ready = Socket.wait(for: fd, writable: true, wakeFD: core.wakeReadFD) else {
                    return false
                }
            case .failure:
                return false
            }
        }
        return true
    }
}

/// Paces a slow reader: how long to wait after each read to stay under a byte rate.
struct ReadThrottle {
    let bytesPerSecond: Int
    private var start: Date?
    private var total = 0

    init(bytesPerSecond: Int) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// Reads of about a twentieth of a second's worth keep the pace smooth.
    var readSize: Int { max(1, min(64 * 1024, bytesPerSecond / 20)) }

    /// The seconds to wait after reading `count` more bytes.
    mutating func delay(afterReading count: Int) -> TimeInterval {
        let start = self.start ?? Date()
        self.start = start
        total += count
        return Double(total) / Double(bytesPerSecond) - Date().timeIntervalSince(start)
    }
}
