#if canImport(CCurl)
    import Dispatch
    import Foundation

    /// Writes a download's body to its sink off the loop's thread, so that a slow disk holds up
    /// only its own transfer: at most ``highWater`` bytes wait for the disk; beyond that the
    /// transfer pauses (`CURL_WRITEFUNC_PAUSE`, so libcurl stops reading its socket and TCP slows
    /// the server down) until the writer has caught up to ``lowWater``.
    final class CurlDiskWriter: Sendable {
        static let highWater = 2 * 1024 * 1024
        static let lowWater = 512 * 1024

        private struct State {
            var pending = 0
            var wantsResume = false
            var failure: (any Error)?
        }

        private let sink: any DownloadSink
        private let queue = DispatchQueue(label: "osprey.curl.disk")
        private let state = Locked(State())
        /// Asks the loop to unpause the transfer.
        private let resume: @Sendable () -> Void
        /// Asks the loop to stop the transfer after a write failed.
        private let fail: @Sendable (any Error) -> Void

        init(
            sink: any DownloadSink, resume: @escaping @Sendable () -> Void,
            fail: @escaping @Sendable (any Error) -> Void
        ) {
            self.sink = sink
            self.resume = resume
            self.fail = fail
        }

        /// Takes the bytes for writing, or returns false (the transfer must pause) when enough are
        /// already waiting; the bytes are offered again after ``resume``.
        func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let accepted = state.withLock { state -> Bool in
                guard state.pending < Self.highWater else {
                    state.wantsResume = true
                    return false
                }
                state.pending += bytes.count
                return true
            }
            guard accepted else { return false }
            let data = Data(bytes)
            queue.async { [self] in
                var failed: (any Error)?
                if state.withLock({ $0.failure == nil }) {
                    do { try sink.write(data) } catch { failed = error }
                }
                let resumes = state.withLock { state -> Bool in
                    state.pending -= data.count
                    if let failed, state.failure == nil { state.failure = failed }
                    guard state.wantsResume, state.pending <= Self.lowWater else { return false }
                    state.wantsResume = false
                    return true
                }
                if let failed { fail(failed) } else if resumes { resume() }
            }
            return true
        }

        /// After the last bytes: ends the sink once everything is written, then reports.
        func finish(_ done: @escaping @Sendable ((any Error)?) -> Void) {
            queue.async { [self] in
                if let failure = state.withLock({ $0.failure }) { return done(failure) }
                do {
                    try sink.end()
                    done(nil)
                } catch {
                    done(error)
                }
            }
        }

        /// The transfer failed or was cancelled: the sink keeps what it has for a resume, once
        /// the bytes still waiting are written; then `done` runs.
        func abandon(then done: @escaping @Sendable () -> Void = {}) {
            queue.async { [sink] in
                sink.abandon()
                done()
            }
        }
    }
#endif
