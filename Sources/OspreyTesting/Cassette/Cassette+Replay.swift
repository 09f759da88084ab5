import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Cassette {
    /// Answers `request` with a recorded exchange: to the request's sink in the recorded pieces
    /// when it takes the body (a stream, a download), else whole; after the recorded time when
    /// asked, within the request's idle timeout.
    func replay(_ entry: HAR.Entry, to request: TransportRequest) -> Promise<TransportResponse> {
        let context = APIError.Context(request: request.urlRequest)
        let entry = Self.ranged(entry, for: request.urlRequest)
        let recorded = entry.response
        let url =
            recorded.url.flatMap(URL.init(string:)) ?? request.urlRequest.url ?? URL(
                string: "http://cassette.invalid")!
        var headers = HTTPHeaders()
        for header in recorded.headers where !Self.droppedOnReplay.contains(header.name.lowercased()) {
            headers.add(name: header.name, value: header.value)
        }
        guard let body = recorded.content.data ?? (recorded.content.text == nil ? Data() : nil) else {
            return Promise(
                error: APIError.transport(underlying: URLError(.cannotDecodeContentData), context: context))
        }
        var answered = request
        answered.urlRequest.url = url
        let delay = replaysTiming ? entry.time / 1000 : 0
        if let idle = request.idleTimeout, delay > idle {
            let (promise, resolver) = Promise<TransportResponse>.pending()
            timers.asyncAfter(deadline: .now() + idle) {
                resolver.reject(APIError.timedOut(context: context))
            }
            return promise
        }
        if request.downloadSink == nil, delay == 0 {
            // The common case, answered at once: no queue, no Foundation response made.
            if let limit = request.maximumResponseBytes, body.count > limit {
                return Promise(error: APIError.responseTooLarge(limit: limit, context: context))
            }
            return Promise(
                value: TransportResponse(
                    url: url, statusCode: recorded.status, httpVersion: recorded.httpVersion,
                    headers: headers,
                    data: body, request: answered.urlRequest))
        }
        let (promise, resolver) = Promise<TransportResponse>.pending()
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: recorded.status, httpVersion: recorded.httpVersion,
                headerFields: Dictionary(headers.map { ($0.name, $0.value) }) { "\($0), \($1)" })
        else {
            resolver.reject(
                APIError.transport(underlying: URLError(.cannotDecodeContentData), context: context))
            return promise
        }
        let pieces = Self.pieces(of: body, sizes: recorded.content.chunks)
        let redirected = answered
        timers.asyncAfter(deadline: .now() + delay) {
            Self.deliver(pieces, of: response, to: redirected, resolver: resolver)
        }
        return promise
    }

    /// Headers that describe the recorded bytes on the wire, not the decoded body replayed.
    private static let droppedOnReplay: Set<String> = [
        "content-encoding", "transfer-encoding", "content-length",
    ]

    /// `body` cut into the recorded sizes (one piece when there are none or they do not add up).
    static func pieces(of body: Data, sizes: [Int]?) -> [Data] {
        guard let sizes, !sizes.isEmpty, sizes.allSatisfy({ $0 >= 0 }), sizes.reduce(0, +) == body.count
        else {
            return [body]
        }
        var pieces: [Data] = []
        var start = body.startIndex
        for size in sizes {
            pieces.append(body[start..<start + size])
            start += size
        }
        return pieces
    }

    private static func deliver(
        _ pieces: [Data], of response: HTTPURLResponse, to request: TransportRequest,
        resolver: Resolver<TransportResponse>
    ) {
        guard resolver.isPending else { return }
        let context = APIError.Context(request: request.urlRequest, response: response)
        let body = pieces.reduce(Data(), +)
        do {
            if let sink = request.downloadSink, try sink.begin(response) {
                if let limit = sink.maximumBytes, Int64(body.count) > limit {
                    sink.abandon()
                    resolver.reject(APIError.responseTooLarge(limit: Int(clamping: limit), context: context))
                    return
                }
                var written = sink.startOffset
                for piece in pieces {
                    guard resolver.isPending else {
                        sink.abandon()
                        return
                    }
                    try sink.write(piece)
                    written += Int64(piece.count)
                    request.progress?(.download, written, sink.startOffset + Int64(body.count))
                }
                try sink.end()
                resolver.fulfill(
                    TransportResponse(
                        response: response, data: Data(), request: request.urlRequest, bodyWentToSink: true))
                return
            }
        } catch {
            request.downloadSink?.abandon()
            resolver.reject(error as? APIError ?? APIError.transport(underlying: error, context: context))
            return
        }
        if let limit = request.maximumResponseBytes, body.count > limit {
            resolver.reject(APIError.responseTooLarge(limit: limit, context: context))
            return
        }
        resolver.fulfill(TransportResponse(response: response, data: body, request: request.urlRequest))
    }
}

/// Passes a transport's body on to the request's own sink, keeping a copy and the sizes of
/// the pieces it came in.
final class RecordingSink: DownloadSink, @unchecked Sendable {
    // @unchecked: a transport calls a sink one call at a time; `lock` guards the copy for the
    // reader that comes after.
    private let wrapped: any DownloadSink
    private let lock = NSLock()
    private var copy = Data()
    private var sizes: [Int] = []

    init(_ wrapped: any DownloadSink) {
        self.wrapped = wrapped
    }

    var startOffset: Int64 { wrapped.startOffset }
    var maximumBytes: Int64? { wrapped.maximumBytes }

    /// What the sink received.
    var received: Data { lock.withLock { copy } }
    /// The sizes of the pieces it came in.
    var chunks: [Int] { lock.withLock { sizes } }

    func begin(_ response: HTTPURLResponse) throws -> Bool { try wrapped.begin(response) }

    func write(_ data: Data) throws {
        lock.withLock {
            copy.append(data)
            sizes.append(data.count)
        }
        try wrapped.write(data)
    }

    func end() throws { try wrapped.end() }
    func abandon() { wrapped.abandon() }
}
