import Foundation

extension LoopbackServer.Response {
    /// Scripted misbehaviours for a response. All waits end early when the server stops.
    public struct Faults: Sendable, Equatable {
        /// Seconds to wait after the request before sending the status line.
        public var headDelay: TimeInterval = 0
        /// Send the head a line at a time, waiting this many seconds before each line after the
        /// first.
        public var headDrip: TimeInterval?
        /// Sends the head a byte at a time, this many seconds apart.
        public var headByteDrip: TimeInterval?
        /// Stop sending after this many body bytes, for `seconds`, then carry on.
        public var pause: (afterBytes: Int, seconds: TimeInterval)?
        /// Send the body in pieces of `chunkSize` bytes with `interval` seconds between them.
        public var drip: (chunkSize: Int, interval: TimeInterval)?
        /// Close the connection after this many body bytes, whatever the framing promised.
        public var closeAfterBodyBytes: Int?
        /// Declare a `Content-Length` this many bytes larger than the body, send the body, then close.
        public var overstatedLength = 0
        /// Ignore the body and stream `chunk` forever (chunked) until the client goes away.
        public var endless: (chunk: Data, interval: TimeInterval)?
        /// After the response, wait `delay` seconds and write `bytes` as they are, outside any
        /// framing, then carry on serving the connection.
        public var trailingBytes: (bytes: Data, delay: TimeInterval)?

        /// No faults.
        public init() {}

        /// True when every fault is off.
        public var isEmpty: Bool { self == Faults() }

        /// Compares two fault scripts.
        public static func == (lhs: Faults, rhs: Faults) -> Bool {
            lhs.headDelay == rhs.headDelay && lhs.headDrip == rhs.headDrip
                && lhs.headByteDrip == rhs.headByteDrip
                && lhs.pause?.afterBytes == rhs.pause?.afterBytes && lhs.pause?.seconds == rhs.pause?.seconds
                && lhs.drip?.chunkSize == rhs.drip?.chunkSize && lhs.drip?.interval == rhs.drip?.interval
                && lhs.closeAfterBodyBytes == rhs.closeAfterBodyBytes
                && lhs.overstatedLength == rhs.overstatedLength
                && lhs.endless?.chunk == rhs.endless?.chunk && lhs.endless?.interval == rhs.endless?.interval
                && lhs.trailingBytes?.bytes == rhs.trailingBytes?.bytes
                && lhs.trailingBytes?.delay == rhs.trailingBytes?.delay
        }
    }

    /// Waits `seconds` before sending the status line (a slow first byte).
    public func delayingHead(by seconds: TimeInterval) -> Self {
        modified { $0.headDelay = seconds }
    }

    /// Sends the head a line at a time, `interval` seconds apart: a head that arrives slowly
    /// but steadily.
    public func drippingHead(every interval: TimeInterval) -> Self {
        modified { $0.headDrip = max(0, interval) }
    }

    /// Sends the head a byte at a time, `interval` seconds apart: no line is whole for most of
    /// the time, so only a client that counts every byte as activity sees it coming.
    public func drippingHeadBytes(every interval: TimeInterval) -> Self {
        modified { $0.headByteDrip = max(0, interval) }
    }

    /// Sends `afterBytes` body bytes, stalls for `seconds`, then sends the rest.
    public func pausingBody(afterBytes: Int, for seconds: TimeInterval) -> Self {
        modified { $0.pause = (max(0, afterBytes), seconds) }
    }

    /// Sends the body `chunkSize` bytes at a time, waiting `interval` seconds between pieces.
    public func dripping(chunkSize: Int, every interval: TimeInterval) -> Self {
        modified { $0.drip = (max(1, chunkSize), interval) }
    }

    /// Closes the connection after `afterBytes` body bytes: a body cut short mid-transfer.
    public func closingConnection(afterBodyBytes afterBytes: Int) -> Self {
        modified { $0.closeAfterBodyBytes = max(0, afterBytes) }
    }

    /// Declares a `Content-Length` `extraBytes` larger than the body, sends the body and closes.
    public func overstatingContentLength(by extraBytes: Int) -> Self {
        var copy = modified { $0.overstatedLength = max(1, extraBytes) }
        copy.framing = .contentLength
        return copy
    }

    /// Streams `chunk` forever with chunked framing (every `interval` seconds, or as fast as the
    /// client reads) until the client disconnects or the server stops.
    public func endlessBody(
        chunk: Data = Data(repeating: 0x2A, count: 16 * 1024), every interval: TimeInterval = 0
    )
        -> Self
    {
        var copy = modified { $0.endless = (chunk.isEmpty ? Data([0x2A]) : chunk, interval) }
        copy.framing = .chunked(chunkSize: max(1, chunk.count))
        return copy
    }

    /// After the response, waits `delay` seconds and writes `bytes` raw on the same connection
    /// (stray bytes after a `204`, or a body longer than its `Content-Length`), which stays open
    /// for the next request.
    public func followedByRawBytes(_ bytes: Data, after delay: TimeInterval = 0) -> Self {
        modified { $0.trailingBytes = (bytes, delay) }
    }

    private func modified(_ change: (inout Faults) -> Void) -> Self {
        var copy = self
        change(&copy.faults)
        return copy
    }
}
