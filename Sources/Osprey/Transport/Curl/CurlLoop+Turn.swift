#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// The loop's turns: what its thread does between two waits in the poller, with the loop's
    /// lock (`engine`) held.
    extension CurlLoop {
        /// The loop's thread: turns until the loop shuts down.
        func run() {
            var polled: Int32 = 0
            while true {
                guard let wait = engine.withLock({ _ in turn(polled: polled) }) else { return }
                // The only time the loop lets go of its lock: another thread may start a transfer.
                polled = ccurl_poller_wait(poller, wait)
            }
        }

        /// One turn of the loop, with `engine` held: acts on what the last wait found (`polled`:
        /// how many events, or -errno when epoll failed), completes the transfers that ended, applies
        /// the timeouts and the commands. Returns how long to wait next; nil once the loop shut down.
        private func turn(polled: Int32) -> Int32? {
            inbox.withLock { $0.isWaiting = false }
            if polled < 0 {
                // epoll itself failed (not an interruption): this loop cannot go on, the group's
                // other loops can.
                shutDown(reason: "its poller failed (errno \(-polled))")
                return nil
            }
            var running: Int32 = 0
            ccurl_poller_dispatch(poller, &running)
            var result: Int32 = 0
            while let handle = ccurl_multi_next_done(multi, &result) { complete(handle, result: result) }
            let now = DispatchTime.now().uptimeNanoseconds
            for transfer in transfers.values {
                if let error = transfer.timeoutError(at: now) {
                    transfers.removeValue(forKey: transfer.handle)
                    transfer.detach(from: multi, failing: error)
                }
            }
            let commands = inbox.withLock { inbox in
                defer { inbox.commands = [] }
                return inbox.commands
            }
            for command in commands {
                switch command {
                case .start(let transfer):
                    _ = attach(transfer)
                // A handle's address can be reused once its transfer ended: only the same
                // transfer counts.
                case .stop(let transfer, let error):
                    if transfers[transfer.handle] === transfer {
                        transfers[transfer.handle] = nil
                        transfer.detach(from: multi, failing: error)
                    }
                case .resume(let transfer):
                    if transfers[transfer.handle] === transfer { transfer.unpause() }
                case .ended(let transfer, let result):
                    if transfers[transfer.handle] === transfer { complete(transfer.handle, result: result) }
                case .overran(let transfer, let reader):
                    if transfers[transfer.handle] === transfer, transfer.bodyReader === reader,
                        let overrun = reader.overrun
                    {
                        transfers[transfer.handle] = nil
                        transfer.detach(from: multi) { .transport(underlying: overrun, context: $0) }
                    }
                case .service(let owner):
                    owner.service(in: multi)
                case .inspect(let report):
                    report(ccurl_poller_retired_count(poller))
                case .inspectIdlePorts(let report):
                    var ports = [Int32](repeating: 0, count: 256)
                    let count = Int(ccurl_poller_idle_ports(poller, &ports, Int32(ports.count)))
                    report(ports.prefix(count).map(Int.init))
                case .shutDown(let reason, let then):
                    shutDown(reason: reason)
                    then?()
                    return nil
                }
            }
            // Timeouts are checked each turn, so the loop wakes at least every 50 ms while
            // transfers run (and whenever libcurl's timer, a socket or a command needs it).
            // Waits only if no command came meanwhile (else it looks at the sockets and goes on).
            let waits = inbox.withLock { inbox -> Bool in
                inbox.isWaiting = inbox.commands.isEmpty
                return inbox.isWaiting
            }
            return ccurl_poller_plan_wait(poller, waits ? (transfers.isEmpty ? 1000 : 50) : 0)
        }

        /// Completes the transfer libcurl ended on `handle`.
        private func complete(_ handle: OpaquePointer, result: Int32) {
            // An upgrade's connection is never pooled: its owner reads it.
            let upgrading = transfers[handle]?.upgradeSink != nil
            let version = upgrading ? 0 : noteConnection(of: handle)
            guard let transfer = transfers.removeValue(forKey: handle) else { return }
            // A transfer that failed before a version was chosen tells nothing.
            if let origin = transfer.placementOrigin, version != 0 {
                placement?.learn(origin, multiplexed: version >= 3)
            }
            readBuffer.record(bodyBytes: transfer.bodyBytes)
            transfer.complete(in: multi, result: result)
        }

        /// Tells the poller that the finished transfer's connection rests in the pool (unless it
        /// was closed), and whether it multiplexes (HTTP/2): only an idle HTTP/1 connection is
        /// retired when bytes arrive on it. Returns the HTTP version the transfer used
        /// (CURL_HTTP_VERSION_*: HTTP/2 is 3, HTTP/3 30; 0 when unknown).
        private func noteConnection(of handle: OpaquePointer) -> Int {
            var version = 0
            ccurl_easy_getinfo_long(handle, Int32(CCURLINFO_HTTP_VERSION), &version)
            let socket = ccurl_easy_active_socket(handle)
            guard seesReuse, socket >= 0 else { return version }
            ccurl_poller_watch_idle(poller, socket, version >= 3 ? 1 : 0)
            return version
        }

        private func shutDown(reason: String) {
            let stopped = CurlLoopStopped(loop: name, reason: reason)
            inbox.withLock { $0.isClosed = true }
            // Commands that came after the last turn: their transfers fail too.
            let late = inbox.withLock { inbox in
                defer { inbox.commands = [] }
                return inbox.commands
            }
            for case .start(let transfer) in late { transfer.reject(stopped) }
            for transfer in transfers.values {
                transfer.detach(from: multi, failing: { .transport(underlying: stopped, context: $0) })
            }
            transfers = [:]
            for owner in channels.values { owner.loopStopped(stopped, in: multi) }
            channels = [:]
            ccurl_multi_cleanup(multi)
            for handle in handles.withLock({ handles in
                defer { handles.spares = nil }
                return handles.spares ?? []
            }) {
                ccurl_easy_cleanup(handle)
            }
            // After multi_cleanup, which may still call the poller's callbacks.
            ccurl_poller_destroy(poller)
        }
    }
#endif
