import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `stream` call's body: a final response whose status the API accepts hands its head to the
/// stream and its body to the stream's buffer as it arrives; any other stays in memory and
/// becomes the request's error, as for a plain request.
final class StreamPlan: ResponseBodyPlan, FlowControlledSink {
    let buffer: StreamBuffer
    private let accepts: @Sendable (ResponseHead) -> Bool
    private let started = Locked(false)

    /// - Parameters:
    ///   - buffer: Where the body goes.
    ///   - accepts: Whether a final response's status is a success (the API's validation).
    init(buffer: StreamBuffer, accepts: @escaping @Sendable (ResponseHead) -> Bool) {
        self.buffer = buffer
        self.accepts = accepts
    }

    /// Whether the reader got the head: a failure after that ends the stream, never a retry
    /// (it would send the reader the body twice).
    var allowsRetry: Bool { !started.withLock { $0 } }

    func prepare(_ request: URLRequest, then send: @escaping @Sendable (URLRequest, Bool) -> Void) {
        send(request, false)
    }

    func requestEnded() {}

    // MARK: DownloadSink

    var startOffset: Int64 { 0 }
    var maximumBytes: Int64? { nil }

    func begin(_ response: HTTPURLResponse) throws -> Bool {
        try begin(response, request: URLRequest(url: response.url ?? URL(string: "http://unknown.invalid")!))
    }

    func begin(_ response: HTTPURLResponse, request: URLRequest) throws -> Bool {
        let head = ResponseHead(response, request: request)
        guard accepts(head) else { return false }
        started.withLock { $0 = true }
        buffer.begin(head)
        return true
    }

    func write(_ data: Data) throws {
        buffer.append(data)
    }

    func offer(_ bytes: UnsafeRawBufferPointer, resume: @escaping @Sendable () -> Void) -> Bool {
        buffer.offer(bytes, resume: resume)
    }

    var waitingBytes: Int { buffer.waitingBytes }

    /// 16 times the buffer, and at least 16 MiB.
    var hardLimit: Int { Swift.max(16 * buffer.capacity, 16 << 20) }

    /// The end comes from the request's outcome (``ResponseStream``), once it has settled.
    func end() throws {}

    func abandon() {}

    /// A transport that kept the body in memory (it ignores sinks): the whole body at once.
    func deliverWhole(_ exchange: TransportResponse) {
        started.withLock { $0 = true }
        buffer.begin(ResponseHead(exchange))
        buffer.append(exchange.data)
    }
}
