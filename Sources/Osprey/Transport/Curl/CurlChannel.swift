#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// An upgraded connection on a ``CurlTransport``: after the `101`, the loop reads and writes
    /// its socket with `curl_easy_recv` and `curl_easy_send` (libcurl keeps doing the TLS and
    /// the proxy's tunnel), watched by the loop's poller like libcurl's own sockets.
    ///
    /// Any thread may write, pause reading or close: the request goes into a locked outbox and
    /// the loop is asked to serve the channel. Everything else runs on the loop's thread.
    final class CurlChannel: UpgradedConnection, CurlSocketOwner, @unchecked Sendable {
        // @unchecked: the fields below the outbox are the loop thread's only; the outbox is locked.
        private let handle: OpaquePointer
        private let socket: Int32
        private weak var loop: CurlLoop?
        private let outbox = Locked(Outbox())

        private struct Outbox {
            var receiver: (any UpgradedConnectionReceiver)?
            var writes: [Write] = []
            var reading = true
            var closeRequested = false
            /// Whether the loop was asked to serve the channel and has not yet.
            var serviceAsked = false
        }

        private struct Write {
            var bytes: [UInt8]
            var offset = 0
            var written: (@Sendable ((any Error)?) -> Void)?
        }

        // The loop's thread only.
        private var receiver: (any UpgradedConnectionReceiver)?
        private var leftover: [UInt8]
        private var pending: [Write] = []
        private var reading = true
        private var ended = false
        private var watched: Int32 = 0
        /// Where reads land, kept for the connection's life.
        private var scratch = [UInt8](repeating: 0, count: 64 << 10)

        /// The transport whose loop carries the connection: kept alive until the connection
        /// ends, so that releasing the API that opened a socket does not stop its loop (the loop
        /// holds the channel until then, a cycle the end breaks).
        private var transport: CurlTransport?

        init(
            handle: OpaquePointer, socket: Int32, loop: CurlLoop, leftover: [UInt8], transport: CurlTransport?
        ) {
            self.handle = handle
            self.socket = socket
            self.loop = loop
            self.leftover = leftover
            self.transport = transport
        }

        // MARK: Any thread

        func start(_ receiver: any UpgradedConnectionReceiver) {
            ask { $0.receiver = receiver }
        }

        func write(_ bytes: [UInt8], written: (@Sendable ((any Error)?) -> Void)?) {
            ask { $0.writes.append(Write(bytes: bytes, written: written)) }
        }

        func setReading(_ reading: Bool) {
            ask { $0.reading = reading }
        }

        func close() {
            ask { $0.closeRequested = true }
        }

        /// Changes the outbox and has the loop serve the channel (once, however many changes
        /// come before it does). A loop that stopped has ended the channel already.
        private func ask(_ change: (inout Outbox) -> Void) {
            let submit = outbox.withLock { outbox -> Bool in
                change(&outbox)
                defer { outbox.serviceAsked = true }
                return !outbox.serviceAsked
            }
            if submit, let loop, !loop.submit(.service(self)) {
                // The loop is gone: nothing will ever be written.
                let writes = outbox.withLock { outbox in
                    defer { outbox.writes = [] }
                    return outbox.writes
                }
                for write in writes {
                    write.written?(CurlLoopStopped(loop: loop.name, reason: "it shut down"))
                }
            }
        }

        // MARK: The loop's thread

        func service(in multi: OpaquePointer) {
            let (newReceiver, writes, wantsReading, closeRequested) = outbox.withLock { outbox in
                defer {
                    outbox.receiver = nil
                    outbox.writes = []
                    outbox.serviceAsked = false
                }
                return (outbox.receiver, outbox.writes, outbox.reading, outbox.closeRequested)
            }
            guard !ended else {
                for write in writes { write.written?(URLError(.networkConnectionLost)) }
                return
            }
            pending += writes
            let resumed = wantsReading && !reading
            reading = wantsReading
            if let newReceiver, receiver == nil {
                receiver = newReceiver
                // Bytes that came with the head go first.
                if !leftover.isEmpty {
                    let bytes = leftover
                    leftover = []
                    bytes.withUnsafeBytes { newReceiver.received($0) }
                }
                read(in: multi)
            } else if resumed {
                // TLS may hold decrypted bytes the socket will never signal again: read now.
                read(in: multi)
            }
            guard !ended else { return }
            flush(in: multi)
            guard !ended else { return }
            if closeRequested, pending.isEmpty { return end(nil, in: multi) }
            updateWatch()
        }

        func socketReady(_ events: Int32, in multi: OpaquePointer) {
            guard !ended else { return }
            if events & Int32(CCURL_CHANNEL_WRITABLE) != 0 { flush(in: multi) }
            if !ended, events & Int32(CCURL_CHANNEL_READABLE | CCURL_CHANNEL_CLOSED) != 0 { read(in: multi) }
            guard !ended else { return }
            // A close asked for meanwhile is done by `service`, which the request scheduled, after
            // the writes that came before it.
            updateWatch()
        }

        func loopStopped(_ error: CurlLoopStopped, in multi: OpaquePointer) {
            end(error, in: multi)
        }

        /// Reads until the socket has nothing more, the reader pauses, or the connection ends.
        private func read(in multi: OpaquePointer) {
            guard let receiver else { return }
            while !ended, reading, outbox.withLock({ $0.reading }) {
                var received = 0
                let code = scratch.withUnsafeMutableBytes {
                    ccurl_easy_recv(handle, $0.baseAddress, $0.count, &received)
                }
                if code == Int32(CCURLE_AGAIN) { return }
                guard code == 0 else { return end(Self.error(code), in: multi) }
                guard received > 0 else { return end(nil, in: multi) }
                scratch.withUnsafeBytes {
                    receiver.received(UnsafeRawBufferPointer(rebasing: $0[..<received]))
                }
            }
        }

        /// Sends what the socket takes of the pending writes, in order.
        private func flush(in multi: OpaquePointer) {
            while !ended, !pending.isEmpty {
                var sent = 0
                let code = pending[0].bytes.withUnsafeBytes { bytes in
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[pending[0].offset...])
                    return ccurl_easy_send(handle, rest.baseAddress, rest.count, &sent)
                }
                if code == Int32(CCURLE_AGAIN) { return }
                guard code == 0 else { return end(Self.error(code), in: multi) }
                pending[0].offset += sent
                if pending[0].offset == pending[0].bytes.count {
                    let done = pending.removeFirst()
                    done.written?(nil)
                }
            }
        }

        /// Watches for reading while the reader wants bytes, and for writing while bytes wait.
        private func updateWatch() {
            var events: Int32 = 0
            if reading, receiver != nil { events |= Int32(CCURL_CHANNEL_READABLE) }
            if !pending.isEmpty { events |= Int32(CCURL_CHANNEL_WRITABLE) }
            guard events != watched else { return }
            watched = events
            loop?.watchChannel(socket, owner: self, events: events)
        }

        /// Closes the connection (libcurl closes a CONNECT_ONLY connection when its handle leaves
        /// the multi handle), fails what was not written, and tells the receiver.
        private func end(_ error: (any Error)?, in multi: OpaquePointer) {
            guard !ended else { return }
            ended = true
            loop?.forgetChannel(socket)
            ccurl_multi_remove_handle(multi, handle)
            if let loop { loop.recycle(handle) } else { ccurl_easy_cleanup(handle) }
            let unwritten =
                pending
                + outbox.withLock { outbox in
                    defer { outbox.writes = [] }
                    return outbox.writes
                }
            pending = []
            for write in unwritten { write.written?(error ?? URLError(.networkConnectionLost)) }
            receiver?.ended(error)
            receiver = nil
            // Released last, on the loop's thread: if this was the last reference, the transport
            // shuts its loops down, which only asks them to stop.
            transport = nil
        }

        private static func error(_ code: Int32) -> URLError {
            URLError(
                .networkConnectionLost,
                userInfo: [NSLocalizedDescriptionKey: "libcurl: \(CurlLibrary.describe(code)) (\(code))"])
        }
    }
#endif
