import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Passes a transport's body on to the request's own sink, keeping a copy, the sizes of the
/// pieces it came in and when each came.
final class RecordingSink: DownloadSink, @unchecked Sendable {
    // @unchecked: a transport calls a sink one call at a time; `lock` guards the copy for the
    // reader that comes after.
    private let wrapped: any DownloadSink
    private let started: DispatchTime
    private let lock = NSLock()
    private var copy = Data()
    private var sizes: [Int] = []
    private var times: [Double] = []

    /// A sink passing on to `wrapped`, timing pieces from `started`.
    init(_ wrapped: any DownloadSink, started: DispatchTime) {
        self.wrapped = wrapped
        self.started = started
    }

    var startOffset: Int64 { wrapped.startOffset }
    var maximumBytes: Int64? { wrapped.maximumBytes }

    /// What the sink received.
    var received: Data { lock.withLock { copy } }
    /// The sizes of the pieces it came in.
    var chunks: [Int] { lock.withLock { sizes } }
    /// When each piece came, in milliseconds after the start.
    var chunkTimes: [Double] { lock.withLock { times } }

    func begin(_ response: HTTPURLResponse) throws -> Bool { try wrapped.begin(response) }

    func write(_ data: Data) throws {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            copy.append(data)
            sizes.append(data.count)
            times.append(Double(now - started.uptimeNanoseconds) / 1_000_000)
        }
        try wrapped.write(data)
    }

    func end() throws { try wrapped.end() }
    func abandon() { wrapped.abandon() }
}
