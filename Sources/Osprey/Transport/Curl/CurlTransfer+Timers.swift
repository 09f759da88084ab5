#if canImport(CCurl)
    import Foundation

    /// The transfer's own timers: its deadline and its idle timeout, which the loop checks each
    /// turn.
    extension CurlTransfer {
        /// The error the transfer's timers call for at `now`, if any.
        func timeoutError(at now: UInt64) -> CurlLoop.APIErrorMaker? {
            if let deadline = original.deadline, now >= started &+ Self.nanoseconds(deadline) {
                return { .timedOut(context: $0) }
            }
            // While the reader (or the disk) is behind, the server is not idle: it is held back.
            if !pausedForReader, let idle = original.idleTimeout,
                now >= lastActivity &+ Self.nanoseconds(idle)
            {
                return { .timedOut(context: $0) }
            }
            return nil
        }

        /// The soonest the transfer's own timers (its deadline, its idle timeout) can fire, in
        /// seconds from now; nil when it has none.
        var soonestTimeout: TimeInterval? {
            switch (original.deadline, original.idleTimeout) {
            case (let deadline?, let idle?): min(deadline, idle)
            case (let deadline?, nil): deadline
            case (nil, let idle?): idle
            case (nil, nil): nil
            }
        }

        /// ``soonestTimeout`` in whole milliseconds for the poller: -1 for none, clamped like
        /// ``nanoseconds(_:)``.
        var soonestTimeoutMilliseconds: Int64 {
            guard let seconds = soonestTimeout else { return -1 }
            return Int64(Self.nanoseconds(seconds) / 1_000_000)
        }

        /// Seconds as nanoseconds, clamped to 0 ... 100 years (an infinite or absurd timeout is none
        /// in practice, and must not trap).
        static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
            guard seconds.isFinite else { return seconds > 0 ? 100 * 365 * 86_400 * 1_000_000_000 : 0 }
            return UInt64(min(max(0, seconds), 100 * 365 * 86_400) * 1e9)
        }
    }
#endif
