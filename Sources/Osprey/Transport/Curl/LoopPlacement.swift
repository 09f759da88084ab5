#if canImport(CCurl)
    import Foundation
    import Promises

    /// Which loop of a ``CurlLoopGroup`` carries each origin that may speak HTTP/2.
    ///
    /// An origin seen for the first time is pinned to a loop until one of its transfers ends and
    /// tells which version the server chose: HTTP/2 keeps it pinned (its requests share one
    /// multiplexed connection), HTTP/1 lets its requests spread over the loops.
    final class LoopPlacement: Sendable {
        enum Placement: Equatable {
            /// HTTP/1: any loop.
            case spread
            /// One loop; `learning` while no transfer of the origin has ended yet.
            case pinned(Int, learning: Bool)
        }

        private let origins = Locked<[String: Placement]>([:])
        /// How many origins are remembered: past it, the record starts over (a process talking
        /// to endless hosts keeps bounded memory; a forgotten origin is learnt again).
        static let limit = 4096

        /// The origin's placement; one chosen with `choosing` (a loop's index) when the origin is
        /// new. Nil when it is new and `choosing` finds no loop.
        func place(_ origin: String, choosing: () -> Int?) -> Placement? {
            if let known = origins.withLock({ $0[origin] }) { return known }
            // Chosen outside the lock (it reads the loops' loads); the first to record wins.
            guard let index = choosing() else { return nil }
            return origins.withLock { origins in
                if let known = origins[origin] { return known }
                if origins.count >= Self.limit { origins = [:] }
                origins[origin] = .pinned(index, learning: true)
                return .pinned(index, learning: true)
            }
        }

        /// A transfer of `origin` ended on the loop it was pinned to: its version settles where
        /// the origin's next transfers go.
        func learn(_ origin: String, multiplexed: Bool) {
            origins.withLock { origins in
                guard case .pinned(let index, learning: true) = origins[origin] else { return }
                origins[origin] = multiplexed ? .pinned(index, learning: false) : .spread
            }
        }

        /// Forgets the origin (its loop stopped).
        func forget(_ origin: String) {
            origins.withLock { $0[origin] = nil }
        }

        /// `scheme://host:port`, lower case; nil without a host.
        static func origin(of url: URL) -> String? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
        }
    }
#endif
