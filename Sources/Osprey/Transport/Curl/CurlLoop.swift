#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// The one thread of a ``CurlTransport``: it owns the multi handle and drives every transfer
    /// with `curl_multi_socket_action` over epoll (CCurl's poller), so a wake-up costs work for
    /// the sockets that are ready, not for every transfer. Other threads never touch libcurl:
    /// they hand work to the loop (``submit(_:)``), which wakes it.
    ///
    /// Through the poller the loop also sees what libcurl's callbacks cannot show: each byte of a
    /// head that drips in is activity for the idle timeout, and bytes arriving on an idle pooled
    /// HTTP/1 connection retire it before it can carry another request.
    final class CurlLoop: @unchecked Sendable {
        // @unchecked: `transfers` is only used on the loop's thread, `multi` and `poller` only
        // there but for waking the poller (which any thread may do); `inbox` is locked.
        private let multi: OpaquePointer
        /// Set once in `init`, before the thread starts.
        private var poller: OpaquePointer!
        private var transfers: [OpaquePointer: CurlTransfer] = [:]
        /// Whether libcurl tells which connection each transfer takes (7.80 and later): only then
        /// are idle connections watched, since one reused unseen would look idle.
        private var seesReuse = true
        private let inbox = Locked(Inbox())
        /// Easy handles of ended transfers, reset and kept for the next ones (with their read
        /// buffers and caches); nil once the loop has shut down.
        private let spareHandles = Locked<[OpaquePointer]?>([])
        /// How many spare handles are kept at most.
        private static let spareLimit = 32
        /// The fewest connections libcurl's pool keeps.
        static let poolSize = 64

        private struct Inbox {
            var commands: [Command] = []
            /// Set once the loop has shut down: the poller is gone, nothing more is taken.
            var isClosed = false
            /// Whether the loop is (about to be) blocked in the poller with nothing to do: only
            /// then does a command need to wake it. A loop at work takes the commands before it
            /// next waits, and writing to its wake-up descriptor then would only cost a system
            /// call here and a spurious turn there.
            var isWaiting = false
        }

        enum Command {
            case start(CurlTransfer)
            case stop(CurlTransfer, APIErrorMaker)
            case resume(CurlTransfer)
            /// The body stream `reader` overran its length: the transfer stops if it still reads
            /// from it (a reader of an earlier hop, a redirect's or a retry's, is ignored).
            case overran(CurlTransfer, BodyStreamReader)
            /// Reports how many idle connections were retired so far.
            case inspect(@Sendable (Int) -> Void)
            case shutDown
        }

        /// Makes the error a stopped transfer fails with, from its context.
        typealias APIErrorMaker = @Sendable (APIError.Context) -> APIError

        /// - Parameter maximumConnectionsPerHost: More transfers to one host wait for a connection.
        init?(maximumConnectionsPerHost: Int) {
            guard CurlLibrary.isAvailable, let multi = ccurl_multi_init() else { return nil }
            self.multi = multi
            let perHost = max(1, maximumConnectionsPerHost)
            ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), perHost)
            // libcurl's default pool shrinks as the transfers in flight drain, so under load it
            // closed and reopened connections: keep room for the connections of several hosts,
            // idle ones included.
            ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), max(Self.poolSize, perHost * 4))
            // The poller calls back with the loop unretained: the loop outlives it (it is
            // destroyed by `run`, which the thread holds the loop for).
            guard
                let poller = ccurl_poller_create(
                    multi, curlActivity, Unmanaged.passUnretained(self).toOpaque())
            else {
                ccurl_multi_cleanup(multi)
                return nil
            }
            self.poller = poller
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

        /// Hands a command to the loop and wakes it; ignored once the loop has shut down.
        func submit(_ command: Command) {
            inbox.withLock { inbox in
                guard !inbox.isClosed else { return }
                inbox.commands.append(command)
                // Under the lock: the poller is destroyed only after `isClosed` is set under it.
                if inbox.isWaiting {
                    inbox.isWaiting = false
                    ccurl_poller_wake(poller)
                }
            }
        }

        /// How many idle connections were retired because bytes arrived on them (for tests).
        var retiredConnections: Int {
            get async {
                await withCheckedContinuation { continuation in
                    submit(.inspect { continuation.resume(returning: $0) })
                }
            }
        }

        /// Lets the poller see which connection the transfer on `handle` takes. On the loop's thread.
        func prepare(_ handle: OpaquePointer) {
            if ccurl_poller_prepare(poller, handle) != 0 { seesReuse = false }
        }

        /// A byte arrived on the HTTP/1 connection of the transfer on `handle`.
        fileprivate func sawActivity(on handle: OpaquePointer) {
            transfers[handle]?.lastActivity = DispatchTime.now().uptimeNanoseconds
        }

        private func run() {
            var running: Int32 = 0
            while true {
                let commands = inbox.withLock { inbox in
                    defer { inbox.commands = [] }
                    return inbox.commands
                }
                for command in commands {
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
                    case .overran(let transfer, let reader):
                        if transfers[transfer.handle] === transfer, transfer.bodyReader === reader,
                            let overrun = reader.overrun
                        {
                            transfers[transfer.handle] = nil
                            transfer.detach(from: multi) { .transport(underlying: overrun, context: $0) }
                        }
                    case .inspect(let report):
                        report(ccurl_poller_retired_count(poller))
                    case .shutDown:
                        return shutDown()
                    }
                }
                // Timeouts are checked here, so the loop wakes at least every 50 ms while
                // transfers run (and whenever libcurl's timer, a socket or a command needs it).
                // Waits only if no command came meanwhile (else it looks at the sockets and goes on).
                let waits = inbox.withLock { inbox -> Bool in
                    inbox.isWaiting = inbox.commands.isEmpty
                    return inbox.isWaiting
                }
                ccurl_poller_run(poller, waits ? (transfers.isEmpty ? 1000 : 50) : 0, &running)
                inbox.withLock { $0.isWaiting = false }
                var result: Int32 = 0
                while let handle = ccurl_multi_next_done(multi, &result) {
                    noteConnection(of: handle)
                    if let transfer = transfers.removeValue(forKey: handle) {
                        transfer.complete(in: multi, result: result)
                    }
                }
                let now = DispatchTime.now().uptimeNanoseconds
                for transfer in transfers.values {
                    if let error = transfer.timeoutError(at: now) {
                        transfers.removeValue(forKey: transfer.handle)
                        transfer.detach(from: multi, failing: error)
                    }
                }
            }
        }

        /// Tells the poller that the finished transfer's connection rests in the pool (unless it
        /// was closed), and whether it multiplexes (HTTP/2): only an idle HTTP/1 connection is
        /// retired when bytes arrive on it.
        private func noteConnection(of handle: OpaquePointer) {
            let socket = ccurl_easy_active_socket(handle)
            guard seesReuse, socket >= 0 else { return }
            var version = 0
            ccurl_easy_getinfo_long(handle, Int32(CCURLINFO_HTTP_VERSION), &version)
            // CURL_HTTP_VERSION_2_0 is 3, HTTP/3 30.
            ccurl_poller_watch_idle(poller, socket, version >= 3 ? 1 : 0)
        }

        private func shutDown() {
            for transfer in transfers.values {
                transfer.detach(
                    from: multi, failing: { .transport(underlying: URLError(.cancelled), context: $0) })
            }
            transfers = [:]
            ccurl_multi_cleanup(multi)
            for handle in spareHandles.withLock({ spares in
                defer { spares = nil }
                return spares ?? []
            }) {
                ccurl_easy_cleanup(handle)
            }
            inbox.withLock { $0.isClosed = true }
            // After multi_cleanup, which may still call the poller's callbacks.
            ccurl_poller_destroy(poller)
        }
    }

    /// The poller's activity callback: `context` is the loop, unretained.
    private let curlActivity: ccurl_activity_callback = { context, handle in
        guard let context, let handle else { return }
        Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().sawActivity(on: handle)
    }
#endif
