#if canImport(CCurl)
    internal import CCurl
    import Foundation

    /// One thread of a ``CurlTransport``'s loop group: it owns a multi handle (with its own
    /// connections) and drives the transfers given to it with `curl_multi_socket_action` over
    /// epoll (CCurl's poller), so a wake-up costs work for the sockets that are ready, not for
    /// every transfer. Other threads hand work to the loop (``submit(_:)``), which wakes it; or,
    /// while the loop waits in its poller with nothing to do, start a transfer themselves under
    /// the loop's lock (``engine``), so that the request goes out without waiting for the loop's
    /// thread to be woken and scheduled.
    ///
    /// Through the poller the loop also sees what libcurl's callbacks cannot show: each byte of a
    /// head that drips in is activity for the idle timeout, and bytes arriving on an idle pooled
    /// HTTP/1 connection retire it before it can carry another request.
    final class CurlLoop: @unchecked Sendable {
        // @unchecked: `multi`, `poller` (but for waking it and the loop's own wait) and every
        // `var` below are only used with `engine` held: by the loop's thread for the whole of
        // its turn, which releases it only while waiting in the poller, or by a thread starting
        // a transfer meanwhile. `inbox` and `handles` have locks of their own.
        let engine = Locked(DirectStarts())
        let multi: OpaquePointer
        /// Set once in `init`, before the thread starts.
        var poller: OpaquePointer!
        var transfers: [OpaquePointer: CurlTransfer] = [:]
        /// Sockets read and written by their owners (upgrades), by descriptor.
        var channels: [Int32: any CurlSocketOwner] = [:]
        /// Whether libcurl tells which connection each transfer takes (7.80 and later): only then
        /// are idle connections watched, since one reused unseen would look idle.
        var seesReuse = true
        /// The read buffer's size for the next transfers, from the bodies the last ones read.
        var readBuffer = ReadBufferSizing()
        let inbox = Locked(Inbox())
        let handles = Locked(Handles())
        /// The thread's name, which errors of a loop that shut down name too.
        let name: String
        /// Where the group learns which origins speak HTTP/2 (see ``LoopPlacement``).
        let placement: LoopPlacement?
        /// How many spare handles are kept at most.
        private static let spareLimit = 32
        /// The fewest connections libcurl's pool keeps.
        static let poolSize = 64

        /// How many transfers other threads started while the loop waited (``startDirectly(_:)``),
        /// and how many of those ended at once, for the loop to complete (for tests).
        struct DirectStarts: Equatable {
            var started = 0
            var endedAtOnce = 0
        }

        struct Handles {
            /// Easy handles of ended transfers, reset and kept for the next ones (with their read
            /// buffers and caches); nil once the loop has shut down.
            var spares: [OpaquePointer]? = []
            /// Transfers given a handle and not yet ended: how busy the loop is.
            var inUse = 0
        }

        struct Inbox {
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
            /// libcurl ended `transfer` with `result` while another thread started a transfer
            /// (``startDirectly(_:)``): the loop completes it.
            case ended(CurlTransfer, Int32)
            /// The body stream `reader` overran its length: the transfer stops if it still reads
            /// from it (a reader of an earlier hop, a redirect's or a retry's, is ignored).
            case overran(CurlTransfer, BodyStreamReader)
            /// Lets the owner of a channel do what other threads asked of it.
            case service(any CurlSocketOwner)
            /// Reports how many idle connections were retired so far.
            case inspect(@Sendable (Int) -> Void)
            /// Reports the local ports the poller holds for the idle connections.
            case inspectIdlePorts(@Sendable ([Int]) -> Void)
            /// Fails every transfer of the loop with ``CurlLoopStopped`` and ends the thread, then
            /// calls `then` (tests wait with it).
            case shutDown(reason: String, then: (@Sendable () -> Void)? = nil)
        }

        /// Makes the error a stopped transfer fails with, from its context.
        typealias APIErrorMaker = @Sendable (APIError.Context) -> APIError

        /// - Parameters:
        ///   - maximumConnectionsPerHost: More transfers to one host wait for a connection.
        ///   - name: The thread's name.
        ///   - placement: The group's record of HTTP/2 origins; nil for a loop alone.
        init?(maximumConnectionsPerHost: Int, name: String = "osprey.curl", placement: LoopPlacement? = nil) {
            guard CurlLibrary.isAvailable, let multi = ccurl_multi_init() else { return nil }
            self.multi = multi
            self.name = name
            self.placement = placement
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
                    multi, curlActivity, curlChannel, Unmanaged.passUnretained(self).toOpaque())
            else {
                ccurl_multi_cleanup(multi)
                return nil
            }
            self.poller = poller
            // The thread keeps the loop until `run` returns (after a shut-down): the loop keeps no
            // reference back to it, so the two are freed then.
            let thread = Thread { [self] in
                // Named from inside and through pthread: on Linux a name given before `start()`,
                // or through `Thread.current.name` before `start()` has returned, does not reach
                // the thread, which keeps its creator's (a dispatch worker's) in debuggers, `perf`
                // and the tests that look where work runs.
                ccurl_name_current_thread(name)
                Thread.current.name = name
                run()
            }
            thread.start()
        }

        /// The read buffer to ask libcurl for (nil: its default), for a transfer whose body goes
        /// to a file or a stream (`sinks`) or to memory. On the loop's thread.
        func readBufferSize(sinks: Bool) -> Int? {
            readBuffer.size(sinks: sinks)
        }

        /// Keeps a transfer that started its next hop (a redirect) from inside ``CurlTransfer/complete(in:result:)``.
        /// On the loop's thread only.
        func adopt(_ transfer: CurlTransfer) {
            transfers[transfer.handle] = transfer
        }

        /// An easy handle for a new transfer: a spare one, else a new one (nil if libcurl fails).
        /// The transfer counts as the loop's until its handle is recycled. On any thread.
        func takeHandle() -> OpaquePointer? {
            let spare = handles.withLock { handles in
                handles.inUse += 1
                return handles.spares?.popLast()
            }
            guard let handle = spare ?? ccurl_easy_init() else {
                handles.withLock { $0.inUse -= 1 }
                return nil
            }
            return handle
        }

        /// Takes back the handle of a transfer that ended (it is in no multi handle): reset and
        /// kept for the next transfer, or cleaned up when enough are kept or the loop is gone.
        /// On any thread; once per handle ``takeHandle()`` gave.
        func recycle(_ handle: OpaquePointer) {
            ccurl_easy_reset(handle)
            let kept = handles.withLock { handles -> Bool in
                handles.inUse -= 1
                guard handles.spares != nil, handles.spares!.count < Self.spareLimit else { return false }
                handles.spares!.append(handle)
                return true
            }
            if !kept { ccurl_easy_cleanup(handle) }
        }

        /// How many transfers the loop has (started or about to be): the group gives a new one to
        /// the least busy loop.
        var load: Int { handles.withLock { $0.inUse } }

        /// Whether the loop has shut down (it takes no more transfers).
        var isClosed: Bool { inbox.withLock { $0.isClosed } }

        /// Hands a command to the loop and wakes it; false (the command dropped) once the loop has
        /// shut down.
        @discardableResult
        func submit(_ command: Command) -> Bool {
            if case .start(let transfer) = command, let started = startDirectly(transfer) { return started }
            return inbox.withLock { inbox in
                guard !inbox.isClosed else { return false }
                inbox.commands.append(command)
                // Under the lock: the poller is destroyed only after `isClosed` is set under it.
                if inbox.isWaiting {
                    inbox.isWaiting = false
                    ccurl_poller_wake(poller)
                }
                return true
            }
        }

        /// Starts `transfer` on this thread if the loop waits in its poller with nothing to do
        /// (its lock is free, it has no transfer and no command waits): libcurl sends the request
        /// now. The loop is woken only if it must act before its wait ends: the transfer already
        /// ended, or libcurl's timer or the transfer's own timeouts fall due sooner. Returns nil
        /// when the loop is at work (the command goes to its inbox, which keeps the commands in
        /// order), false once it shut down.
        private func startDirectly(_ transfer: CurlTransfer) -> Bool? {
            let started = engine.withLockIfAvailable { counts -> Bool? in
                // Only a loop with no transfer of its own: one that has some may wake for them
                // at any moment, and would then wait for this lock (measured: 16 requests in
                // flight took 25 % longer when every waiting loop was used).
                guard transfers.isEmpty else { return nil }
                let (closed, idle) = inbox.withLock { ($0.isClosed, $0.isWaiting && $0.commands.isEmpty) }
                if closed { return false }
                guard idle else { return nil }
                guard attach(transfer) else { return true }
                var running: Int32 = 0
                ccurl_poller_run_timer(poller, &running)
                // A transfer that ended at once (a refused connection, an answer read in the same
                // call) is the loop's to complete, on its own thread.
                var ended: [Command] = []
                var result: Int32 = 0
                while let handle = ccurl_multi_next_done(multi, &result) {
                    if let ending = transfers[handle] { ended.append(.ended(ending, result)) }
                }
                let wakes =
                    !ended.isEmpty || ccurl_poller_must_wake(poller, transfer.soonestTimeoutMilliseconds) != 0
                counts.started += 1
                counts.endedAtOnce += ended.count
                inbox.withLock { inbox in
                    inbox.commands.append(contentsOf: ended)
                    if wakes, inbox.isWaiting {
                        inbox.isWaiting = false
                        ccurl_poller_wake(poller)
                    }
                }
                return true
            }
            return started ?? nil
        }

        /// Adds `transfer` to libcurl and keeps it among the loop's transfers; false when it could
        /// not be added (it has failed already). With `engine` held.
        func attach(_ transfer: CurlTransfer) -> Bool {
            guard transfer.attach(to: multi) else { return false }
            transfers[transfer.handle] = transfer
            return true
        }

        /// How many transfers were started from other threads while the loop waited (for tests).
        var directStarts: DirectStarts { engine.withLock { $0 } }

        /// How many idle connections were retired because bytes arrived on them (for tests).
        var retiredConnections: Int {
            get async {
                await withCheckedContinuation { continuation in
                    submit(.inspect { continuation.resume(returning: $0) })
                }
            }
        }

        /// The local ports the poller holds for the idle connections (for tests).
        var idleConnectionPorts: [Int] {
            get async {
                await withCheckedContinuation { continuation in
                    submit(.inspectIdlePorts { continuation.resume(returning: $0) })
                }
            }
        }

        /// Lets the poller see which connection the transfer on `handle` takes. On the loop's thread.
        func prepare(_ handle: OpaquePointer) {
            if ccurl_poller_prepare(poller, handle) != 0 { seesReuse = false }
        }

        /// Watches `socket` for its owner (an upgrade), for `events` (`CCURL_CHANNEL_*`; 0 for
        /// none, while it reads nothing and has nothing to write). On the loop's thread.
        func watchChannel(_ socket: Int32, owner: any CurlSocketOwner, events: Int32) {
            channels[socket] = owner
            ccurl_poller_watch_channel(poller, socket, events)
        }

        /// Stops watching an owner's socket, before its connection closes. On the loop's thread.
        func forgetChannel(_ socket: Int32) {
            channels[socket] = nil
            ccurl_poller_forget_channel(poller, socket)
        }

        /// Forgets a transfer whose handle left the multi handle outside a completion (an
        /// upgrade's handshake ended). On the loop's thread.
        func release(_ transfer: CurlTransfer) {
            if transfers[transfer.handle] === transfer { transfers[transfer.handle] = nil }
        }

        /// A channel's socket is ready.
        fileprivate func channelReady(_ socket: Int32, _ events: Int32) {
            channels[socket]?.socketReady(events, in: multi)
        }

        /// A byte arrived on the HTTP/1 connection of the transfer on `handle`.
        fileprivate func sawActivity(on handle: OpaquePointer) {
            transfers[handle]?.lastActivity = DispatchTime.now().uptimeNanoseconds
        }
    }

    /// What a transfer fails with when its loop shut down before it ended: the transport went away,
    /// or the loop's poller failed (the group's other loops go on).
    struct CurlLoopStopped: Error, CustomStringConvertible {
        /// The loop's thread name.
        let loop: String
        let reason: String

        var description: String {
            "CurlTransport's loop \(loop) stopped (\(reason)) with this transfer in flight"
        }
    }

    /// The poller's channel callback: `context` is the loop, unretained.
    private let curlChannel: ccurl_channel_callback = { context, socket, events in
        guard let context else { return }
        Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().channelReady(socket, events)
    }

    /// The poller's activity callback: `context` is the loop, unretained.
    private let curlActivity: ccurl_activity_callback = { context, handle in
        guard let context, let handle else { return }
        Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().sawActivity(on: handle)
    }
#endif
