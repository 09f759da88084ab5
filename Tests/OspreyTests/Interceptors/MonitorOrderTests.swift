import Foundation
import Osprey
import OspreyTesting
import Testing

/// Records every event, progress included, with its request's URL.
private final class FullRecorder: EventMonitor {
    private let events = Locked<[(url: String, kind: String, description: String)]>([])

    func receive(_ event: APIEvent) {
        let entry = (event.request.url?.absoluteString ?? "?", event.kind.name, event.description)
        events.withLock { $0.append(entry) }
    }

    var all: [(url: String, kind: String, description: String)] { events.withLock { $0 } }
}

@Suite("Event monitors: one request's events in order")
struct MonitorOrderTests {
    @Test("progress reaches monitors before the outcome, never after it (304 requests, 8 at a time)")
    func progressBeforeOutcome() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/small") { _ in .text(String(repeating: "x", count: 26)) }
        let api = TestAPI(server)
        let recorder = FullRecorder()
        api.configuration.monitors = [recorder]
        for batch in 0..<38 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let _: String = try await api.request(
                            route: api.get(endpoint: "/small?n=\(batch * 8 + index)")
                        ).value
                    }
                }
                try await group.waitForAll()
            }
        }
        // Whatever was still queued for the monitors has run.
        await api.drainRequestQueue()
        let byRequest = Dictionary(grouping: recorder.all, by: \.url)
        #expect(byRequest.count == 304)
        for (url, events) in byRequest {
            let kinds = events.map(\.kind)
            #expect(kinds.first == "started", "\(url): \(kinds)")
            #expect(kinds.last == "succeeded", "\(url): \(kinds)")
            #expect(kinds.filter { $0 == "succeeded" }.count == 1, "\(url): \(kinds)")
        }
        #expect(recorder.all.contains { $0.kind == "progress" })
    }

    @Test("a progress event's description says its attempt once")
    func progressDescription() {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:1/file")!)
        let event = APIEvent(
            kind: .progress(
                TransferProgress(direction: .download, completedBytes: 26, expectedBytes: 26, attempt: 2)),
            request: request, response: nil, attempt: 2, elapsed: 0.001)
        #expect(event.description == "GET http://127.0.0.1:1/file: download 26/26 bytes (attempt 2, 0.001 s)")
    }
}
