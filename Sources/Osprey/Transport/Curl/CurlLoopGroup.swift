#if canImport(CCurl)
    import Foundation

    /// The loop threads of a ``CurlTransport``, like an event-loop group: each owns a multi handle
    /// and its connections, and each new transfer goes to one of them.
    ///
    /// HTTP/1 transfers go to the least busy loop, so that a host's requests are spread over the
    /// threads (each loop keeps its own connections to the host, and its share of the per-host
    /// limit). An origin that may speak HTTP/2 stays on one loop: a multiplexed connection
    /// belongs to one multi handle, and spreading its requests would open one connection per
    /// loop. Its first transfer tells (``LoopPlacement``): HTTP/2 keeps the origin where it is,
    /// HTTP/1 lets it spread like the rest.
    final class CurlLoopGroup: Sendable {
        let loops: [CurlLoop]
        private let placement: LoopPlacement

        /// A group of `count` loops (at least one) sharing `maximumConnectionsPerHost` between
        /// them: never more loops than connections allowed to a host, and the limit divided so that
        /// the loops together open at most that many. Nil when libcurl cannot be used.
        init?(count: Int, maximumConnectionsPerHost: Int) {
            let perHost = max(1, maximumConnectionsPerHost)
            let count = min(max(1, count), perHost)
            let placement = LoopPlacement()
            var loops: [CurlLoop] = []
            for index in 0..<count {
                let share = perHost / count + (index < perHost % count ? 1 : 0)
                guard
                    let loop = CurlLoop(
                        maximumConnectionsPerHost: share,
                        name: count == 1 ? "osprey.curl" : "osprey.curl.\(index)",
                        placement: count == 1 ? nil : placement)
                else {
                    for made in loops { made.submit(.shutDown(reason: "the transport could not be made")) }
                    return nil
                }
                loops.append(loop)
            }
            self.loops = loops
            self.placement = placement
        }

        /// The loop for a new transfer of `url`, and the origin whose placement its transfer
        /// reports when it ends (nil when there is nothing to learn); nil when every loop has
        /// shut down. `mayMultiplex`: whether the transfer may speak HTTP/2.
        func loop(for url: URL?, mayMultiplex: Bool) -> (loop: CurlLoop, origin: String?)? {
            guard loops.count > 1 else { return loops[0].isClosed ? nil : (loops[0], nil) }
            guard mayMultiplex, let url, let origin = LoopPlacement.origin(of: url) else {
                return leastBusy().map { ($0, nil) }
            }
            switch placement.place(origin, choosing: { leastBusy().flatMap(loops.firstIndex(of:)) }) {
            case .spread:
                return leastBusy().map { ($0, nil) }
            case .pinned(let index, let learning):
                if !loops[index].isClosed { return (loops[index], learning ? origin : nil) }
                // Its loop stopped: the origin is placed again by its next transfer.
                placement.forget(origin)
                return leastBusy().map { ($0, nil) }
            case nil:
                return nil
            }
        }

        /// The open loop with the fewest transfers (the first of equals); nil when all are closed.
        private func leastBusy() -> CurlLoop? {
            var best: (loop: CurlLoop, load: Int)?
            for loop in loops where !loop.isClosed {
                let load = loop.load
                if best == nil || load < best!.load { best = (loop, load) }
            }
            return best?.loop
        }

        func shutDown(reason: String) {
            for loop in loops { loop.submit(.shutDown(reason: reason)) }
        }
    }

    extension CurlLoop: Equatable {
        static func == (left: CurlLoop, right: CurlLoop) -> Bool { left === right }
    }
#endif
