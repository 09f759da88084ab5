import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Cassette {
    /// Answers `request` with a recorded exchange: to the request's sink in the recorded pieces
    /// when it takes the body (a stream, a download), else whole; with the recorded timing when
    /// asked (``ReplaySchedule``), within the request's idle timeout and deadline.
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
        let metrics = RequestMetrics(recorded: entry)
        if request.downloadSink == nil, !replaysTiming {
            // The common case, answered at once: no queue, no Foundation response made.
            if let limit = request.maximumResponseBytes, body.count > limit {
                return Promise(error: APIError.responseTooLarge(limit: limit, context: context))
            }
            var response = TransportResponse(
                url: url, statusCode: recorded.status, httpVersion: recorded.httpVersion, headers: headers,
                data: body, request: answered.urlRequest)
            response.metrics = metrics
            return Promise(value: response)
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
        let schedule =
            replaysTiming
            ? ReplaySchedule(
                recorded: entry, pieces: pieces.count, idleTimeout: request.idleTimeout,
                deadline: request.deadline)
            : .immediate(pieces: pieces.count)
        ReplayDelivery(pieces, of: response, to: answered, metrics: metrics, resolver: resolver, on: timers)
            .run(schedule)
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
}
