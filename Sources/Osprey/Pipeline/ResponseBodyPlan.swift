import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a request's body goes instead of memory: a file (``DownloadPlan``) or a stream its
/// reader takes as it arrives (``StreamPlan``). The pipeline asks it before each attempt, hands it
/// to the transport as the request's sink, and tells it when the request ended.
protocol ResponseBodyPlan: DownloadSink {
    /// Gives the attempt's request to `send`, changed as the plan needs (a resumed download asks
    /// for the rest), at once or later on another thread (`waited`), never once the request ended.
    func prepare(_ request: URLRequest, then send: @escaping @Sendable (URLRequest, _ waited: Bool) -> Void)
    /// The request ended (its promise settled).
    func requestEnded()
    /// Whether a failed attempt may be sent again: not once a stream's reader got some body.
    var allowsRetry: Bool { get }
}

/// A sink the transport can stop and start: it takes pieces without writing them anywhere slow,
/// and refuses one when its reader is behind (the transport then stops reading the connection
/// until `resume` is called, and offers the same piece again).
protocol FlowControlledSink: DownloadSink {
    /// Takes `bytes`, or returns false and calls `resume` once it can take them.
    func offer(_ bytes: UnsafeRawBufferPointer, resume: @escaping @Sendable () -> Void) -> Bool
    /// How many bytes wait for the reader.
    var waitingBytes: Int { get }
    /// The most bytes a transport that cannot stop may leave waiting before it gives up.
    var hardLimit: Int { get }
    /// The final response's head arrived, for `request` (the hop that got it): whether the body
    /// comes here (else it stays in memory, as for an error).
    func begin(_ response: HTTPURLResponse, request: URLRequest) throws -> Bool
}

extension DownloadPlan: ResponseBodyPlan {
    var allowsRetry: Bool { true }
}
