import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hands a recorded response to a request step by step, as a transport would: the head to the
/// request's sink (a download, a stream), then each piece with its progress, then the end;
/// to memory when there is no sink or it declines. The limits are checked as the pieces come.
final class ReplayDelivery: @unchecked Sendable {
    // @unchecked: every step runs on `queue`, one at a time; nothing else touches the state.
    private let pieces: [Data]
    private let response: HTTPURLResponse
    private let request: TransportRequest
    private let metrics: RequestMetrics
    private let resolver: Resolver<TransportResponse>
    private let queue: DispatchQueue
    private let expected: Int64
    /// The sink that took the body, once it took it.
    private var sink: (any DownloadSink)?
    private var received: Int64 = 0
    private var body = Data()
    private var finished = false

    init(
        _ pieces: [Data], of response: HTTPURLResponse, to request: TransportRequest, metrics: RequestMetrics,
        resolver: Resolver<TransportResponse>, on queue: DispatchQueue
    ) {
        self.pieces = pieces
        self.response = response
        self.request = request
        self.metrics = metrics
        self.resolver = resolver
        self.queue = queue
        expected = Int64(pieces.reduce(0) { $0 + $1.count })
        resolver.onCancel { [self] in queue.async { self.stop() } }
    }

    /// Runs the steps of `schedule`, each at its time after now.
    func run(_ schedule: ReplaySchedule) {
        let start = DispatchTime.now()
        queue.async { self.continue(schedule.steps, from: 0, start: start) }
    }

    /// Runs the steps that are due, then schedules the next at its time.
    private func `continue`(
        _ steps: [(at: TimeInterval, step: ReplaySchedule.Step)], from index: Int, start: DispatchTime
    ) {
        var index = index
        while index < steps.count, !finished {
            let due = start + steps[index].at
            guard due <= .now() else {
                let next = index
                queue.asyncAfter(deadline: due) { self.continue(steps, from: next, start: start) }
                return
            }
            perform(steps[index].step)
            index += 1
        }
    }

    private var context: APIError.Context {
        APIError.Context(request: request.urlRequest, response: response)
    }

    private func perform(_ step: ReplaySchedule.Step) {
        guard resolver.isPending else { return stop() }
        do {
            switch step {
            case .head:
                if let sink = request.downloadSink, try sink.begin(response) { self.sink = sink }
            case .piece(let index):
                try take(pieces[index])
            case .end:
                try sink?.end()
                finished = true
                var answer = TransportResponse(
                    response: response, data: body, request: request.urlRequest, bodyWentToSink: sink != nil)
                answer.metrics = metrics
                resolver.fulfill(answer)
            case .timeout:
                fail(APIError.timedOut(context: context))
            }
        } catch {
            fail(error as? APIError ?? APIError.transport(underlying: error, context: context))
        }
    }

    private func take(_ piece: Data) throws {
        received += Int64(piece.count)
        if let sink {
            if let limit = sink.maximumBytes, received > limit {
                throw APIError.responseTooLarge(limit: Int(clamping: limit), context: context)
            }
            try sink.write(piece)
            request.progress?(.download, sink.startOffset + received, sink.startOffset + expected)
        } else {
            if let limit = request.maximumResponseBytes, received > limit {
                throw APIError.responseTooLarge(limit: limit, context: context)
            }
            body.append(piece)
            request.progress?(.download, received, expected)
        }
    }

    private func fail(_ error: APIError) {
        stop()
        resolver.reject(error)
    }

    /// Ends the delivery before its end: the sink is told the body will not come.
    private func stop() {
        guard !finished else { return }
        finished = true
        sink?.abandon()
    }
}
