#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// The one thread of a ``CurlTransport``: it owns the multi handle and runs every transfer on
    /// it with `curl_multi_poll`. Other threads never touch libcurl: they hand work to the loop
    /// (``submit(_:)``), which wakes it.
    final class CurlLoop: @unchecked Sendable {
        // @unchecked: `multi` and `transfers` are only used on the loop's thread; `inbox` is locked.
        private let multi: OpaquePointer
        private var transfers: [OpaquePointer: CurlTransfer] = [:]
        private let inbox = Locked<[Command]>([])
        /// Easy handles of ended transfers, reset and kept for the next ones (with their read
        /// buffers and caches); nil once the loop has shut down.
        private let spareHandles = Locked<[OpaquePointer]?>([])
        /// How many spare handles are kept at most.
        private static let spareLimit = 32

        enum Command {
            case start(CurlTransfer)
            case stop(CurlTransfer, APIErrorMaker)
            case resume(CurlTransfer)
            case shutDown
        }

        /// Makes the error a stopped transfer fails with, from its context.
        typealias APIErrorMaker = @Sendable (APIError.Context) -> APIError

        /// - Parameter maximumConnectionsPerHost: More transfers to one host wait for a connection.
        init?(maximumConnectionsPerHost: Int) {
            guard CurlLibrary.isAvailable, let multi = ccurl_multi_init() else { return nil }
            self.multi = multi
            ccurl_multi_setopt_long(
                multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), max(1, maximumConnectionsPerHost))
            // The thread keeps the loop until `run` returns (after a shut-down): the loop keeps no
            // reference back to it, so the two are freed then.
            let thread = Thread { [self] in run() }
            thread.name = "osprey.curl"
            thread.start()
        }

        /// Keeps a transfer that started its next hop (a redirect) from inside ``CurlTransfer/complete(in:result:)``.
        /// On the loop's thread only.
        func adopt(_ transfer: CurlTransfer) {
            transfers[transfer.handle] = transfer
        }

        /// An easy handle for a new transfer: a spare one, else a new one (nil if libcurl fails).
        /// On any thread.
        func takeHandle() -> OpaquePointer? {
            spareHandles.withLock { $0?.popLast() } ?? ccurl_easy_init()
        }

        /// Takes back the handle of a transfer that ended (it is in no multi handle): reset and
        /// kept for the next transfer, or cleaned up when enough are kept or the loop is gone.
        /// On any thread.
        func recycle(_ handle: OpaquePointer) {
            ccurl_easy_reset(handle)
            let kept = spareHandles.withLock { spares -> Bool in
                guard spares != nil, spares!.count < Self.spareLimit else { return false }
                spares!.append(handle)
                return true
            }
            if !kept { ccurl_easy_cleanup(handle) }
        }

        /// Hands a command to the loop and wakes it.
        func submit(_ command: Command) {
            inbox.withLock { $0.append(command) }
            ccurl_multi_wakeup(multi)
        }

        private func run() {
            var running: Int32 = 0
            while true {
                for command in inbox.withLock({ commands in
                    defer { commands = [] }
                    return commands
                }) {
                    switch command {
                    case .start(let transfer):
                        if transfer.attach(to: multi) { transfers[transfer.handle] = transfer }
                    // A handle's address can be reused once its transfer ended: only the same
                    // transfer counts.
                    case .stop(let transfer, let error):
                        if transfers[transfer.handle] === transfer {
                            transfers[transfer.handle] = nil
                            transfer.detach(from: multi, failing: error)
                        }
                    case .resume(let transfer):
                        if transfers[transfer.handle] === transfer { transfer.unpause() }
                    case .shutDown:
                        for transfer in transfers.values {
                            transfer.detach(
                                from: multi,
                                failing: { .transport(underlying: URLError(.cancelled), context: $0) })
                        }
                        transfers = [:]
                        ccurl_multi_cleanup(multi)
                        for handle in spareHandles.withLock({ spares in
                            defer { spares = nil }
                            return spares ?? []
                        }) {
                            ccurl_easy_cleanup(handle)
                        }
                        return
                    }
                }
                ccurl_multi_perform(multi, &running)
                var result: Int32 = 0
                while let handle = ccurl_multi_next_done(multi, &result) {
                    if let transfer = transfers.removeValue(forKey: handle) {
                        transfer.complete(in: multi, result: result)
                    }
                }
                // Timeouts are checked here, so the loop wakes at least every 50 ms while
                // transfers run (and whenever libcurl or a command needs it).
                let now = DispatchTime.now().uptimeNanoseconds
                for transfer in transfers.values {
                    if let error = transfer.timeoutError(at: now) {
                        transfers.removeValue(forKey: transfer.handle)
                        transfer.detach(from: multi, failing: error)
                    }
                }
                var descriptors: Int32 = 0
                ccurl_multi_poll(multi, transfers.isEmpty ? 1000 : 50, &descriptors)
            }
        }

    }
#endif
