import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Cassette {
    /// Answers `request` from `entry`, following the recorded redirects as the request's policy
    /// says: each hop was recorded as an entry of its own, and is matched like a request, so a
    /// replay refuses, limits and rewrites redirects as the transport did.
    func answer(_ request: TransportRequest, from entry: HAR.Entry) -> Promise<TransportResponse> {
        var hop = request
        var entry = entry
        var hops: [TransportResponse] = []
        while case .follow(let limit) = request.redirectPolicy,
            RedirectRules.followedStatuses.contains(entry.response.status)
        {
            let head = Self.head(of: entry, answering: hop.urlRequest)
            let context = APIError.Context(request: hop.urlRequest, response: head.response)
            switch RedirectRules.decide(
                after: head.response, to: hop.urlRequest, original: request.urlRequest,
                sensitiveHeaders: request.sensitiveHeaders)
            {
            case .deliver:
                return finish(replay(entry, to: hop), after: hops)
            case .refuse(let reason):
                return Promise(error: APIError.redirectRefused(reason: reason, context: context))
            case .follow(let next, _):
                guard hops.count < limit else {
                    return Promise(
                        error: APIError.redirectRefused(
                            reason: "more than \(limit) redirects", context: context))
                }
                hops.append(head)
                if (next.httpMethod ?? "GET") != (hop.urlRequest.httpMethod ?? "GET") {
                    // A 303 (or a 301 or 302 after a POST) goes on as a GET, without the body.
                    hop.bodyFileURL = nil
                    hop.bodyStream = nil
                }
                hop.urlRequest = next
                let sent = redaction.redact(HAR.Request(sending: hop))
                guard let recorded = takeRecorded(sent) else {
                    guard records else { return Promise(error: unmatched(hop, sent: sent)) }
                    return finish(record(hop), after: hops)
                }
                entry = recorded
            }
        }
        return finish(replay(entry, to: hop), after: hops)
    }

    /// A recorded redirect's head, as the transport would have kept it in
    /// `TransportResponse.redirects`.
    private static func head(of entry: HAR.Entry, answering request: URLRequest) -> TransportResponse {
        var headers = HTTPHeaders()
        for header in entry.response.headers { headers.add(name: header.name, value: header.value) }
        let url =
            entry.response.url.flatMap(URL.init(string:)) ?? request.url ?? URL(
                string: "http://cassette.invalid")!
        return TransportResponse(
            url: url, statusCode: entry.response.status, httpVersion: entry.response.httpVersion,
            headers: headers,
            data: Data(), request: request)
    }

    /// `answer` with the redirects replayed before it.
    private func finish(_ answer: Promise<TransportResponse>, after hops: [TransportResponse]) -> Promise<
        TransportResponse
    > {
        guard !hops.isEmpty else { return answer }
        let (promise, resolver) = Promise<TransportResponse>.pending()
        resolver.onCancel { answer.cancel() }
        answer.whenSettled { result in
            switch result {
            case .success(var response):
                response.redirects = hops + response.redirects
                response.metrics?.redirects = response.redirects.count
                resolver.fulfill(response)
            case .failure(let error) where error is CancellationError:
                resolver.cancel()
            case .failure(let error):
                resolver.reject(error)
            }
        }
        return promise
    }
}
