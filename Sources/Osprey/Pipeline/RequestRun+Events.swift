import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the run tells event monitors, and small helpers of its steps.
extension RequestRun {
    /// The origin adapters' credentials are kept on: the base URL's, for a ``BaseAPI``.
    var apiOrigin: URL? {
        (api as? any BaseAPI).flatMap { URL(string: $0.baseURL) }
    }

    var elapsed: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    }

    /// Tells the monitors, in order with the request's other events.
    func notify(
        _ kind: APIEvent.Kind, request: URLRequest, response: TransportResponse?, attempt: Int
    ) {
        guard !configuration.monitors.isEmpty else { return }
        events.run { [self] in deliver(kind, request: request, response: response, attempt: attempt) }
    }

    /// Tells the monitors now (from the event sequence).
    func deliver(
        _ kind: APIEvent.Kind, request: URLRequest, response: TransportResponse?, attempt: Int
    ) {
        let monitors = configuration.monitors
        guard !monitors.isEmpty else { return }
        var event = APIEvent(
            kind: kind, request: request, response: response?.response, attempt: attempt, elapsed: elapsed,
            sensitiveHeaders: configuration.sensitiveHeaders, metrics: response?.metrics,
            cacheStatus: response?.cacheStatus)
        event.cacheNote = response?.cacheNote
        if let response, !response.bodyWentToSink { event.responseBody = response.data }
        if let response { event.redirects = response.redirects }
        for monitor in monitors { monitor.receive(event) }
    }

    func notifyProgress(_ report: TransferProgress) {
        let (request, ended) = state.withLock { ($0.request, $0.outcomeNotified) }
        guard !ended else { return }
        deliver(.progress(report), request: request, response: nil, attempt: report.attempt)
    }

    static func adaptationError(_ error: any Error) -> APIError {
        if error is CancellationError { return .cancelled }
        if let error = error as? APIError { return error }
        return .adaptationFailed(underlying: error)
    }
}
