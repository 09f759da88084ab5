import Dispatch
import Foundation
import Osprey
import OspreyTesting

/// What recording and replaying traffic cost (issue 35): W2 (small JSON GETs, 16 in flight) on
/// the default transport, bare and through a `Cassette` that records every exchange with its
/// body; then a cassette of 10,000 recorded exchanges replayed through an API, in requests per
/// second (no network: the replay is all there is). Every response is checked.
struct RecordingWorkloads {
    let scale: Int
    let measurement: Measurement

    func run() throws -> [String] {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/small") { _ in .json(NetworkWorkloads.smallBody) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 1200 / scale
        var lines: [String] = []

        // Recording: the same transport bare, and wrapped by a cassette that records everything.
        let transport = DefaultTransportForBench.make()
        let bare = NetworkWorkloads.BenchAPI(baseURL: server.baseURL.absoluteString, transport: transport)
        var cassettes: [Cassette] = []
        let recordingBlock: () throws -> Void = {
            let cassette = try Cassette(
                file: folder.appendingPathComponent("w2-\(cassettes.count).har"), mode: .all,
                transport: transport,
                savesEachRecording: false)
            cassettes.append(cassette)
            let api = NetworkWorkloads.BenchAPI(baseURL: server.baseURL.absoluteString, transport: cassette)
            Self.fetchSmall(api, count: count)
        }
        let timings = try measurement.interleaved(
            baseline: { Self.fetchSmall(bare, count: count) }, measured: recordingBlock)
        // Checked after the timing: reading `entries` turns every exchange into a redacted HAR
        // entry, the work a save does (timed on its own below), not the recording's.
        for cassette in cassettes {
            check(cassette.entries.count == count, "recorded \(cassette.entries.count) of \(count)")
        }
        let save = try Self.seconds { try cassettes.last!.save() }
        lines.append(
            Comparison(
                workload: "W2 recorded: GET /small x\(count), 16 in flight, bodies kept", operations: count,
                baselineName: "the same transport, not recording", timings: timings, target: 1.10,
                note: String(
                    format: "saving the %d entries afterwards: %.1f ms (%.0f µs per entry)", count,
                    save * 1000,
                    save / Double(count) * 1e6)
            ).report())

        // The default: each exchange saved as it is recorded (appended to the file in place).
        var saving: [Cassette] = []
        let savingTimings = try measurement.interleaved(
            baseline: { Self.fetchSmall(bare, count: count) },
            measured: {
                let cassette = try Cassette(
                    file: folder.appendingPathComponent("w2-saved-\(saving.count).har"), mode: .all,
                    transport: transport)
                saving.append(cassette)
                Self.fetchSmall(
                    NetworkWorkloads.BenchAPI(baseURL: server.baseURL.absoluteString, transport: cassette),
                    count: count)
            })
        for cassette in saving {
            let written = try HAR(data: Data(contentsOf: cassette.file)).log.entries.count
            check(written == count, "saved \(written) of \(count)")
        }
        lines.append(
            Comparison(
                workload:
                    "W2 recorded, each exchange saved at once (the default): GET /small x\(count), 16 in flight",
                operations: count, baselineName: "the same transport, not recording", timings: savingTimings,
                target: nil, note: nil
            ).report())

        // The app-side recorder: an event monitor that builds each redacted entry as the
        // exchange ends (a monitor also keeps the pipeline from finishing on the transport's queue).
        let monitored = NetworkWorkloads.BenchAPI(
            baseURL: server.baseURL.absoluteString, transport: transport)
        let harRecorder = HARRecorder(limit: count)
        monitored.configuration.monitors = [harRecorder]
        let monitorTimings = measurement.interleaved(
            baseline: { Self.fetchSmall(bare, count: count) },
            measured: { Self.fetchSmall(monitored, count: count) })
        check(
            harRecorder.archive.log.entries.count == count,
            "HARRecorder kept \(harRecorder.archive.log.entries.count)")
        lines.append(
            Comparison(
                workload: "W2 with a HARRecorder monitor: GET /small x\(count), 16 in flight, bodies kept",
                operations: count, baselineName: "the same API without it", timings: monitorTimings,
                target: 1.10, note: nil
            ).report())

        // The recorder's own share: against the same API with a monitor that does nothing.
        let quiet = NetworkWorkloads.BenchAPI(baseURL: server.baseURL.absoluteString, transport: transport)
        quiet.configuration.monitors = [IgnoringMonitor()]
        let ownTimings = measurement.interleaved(
            baseline: { Self.fetchSmall(quiet, count: count) },
            measured: { Self.fetchSmall(monitored, count: count) })
        lines.append(
            Comparison(
                workload: "W2 with a HARRecorder monitor: GET /small x\(count), 16 in flight, bodies kept",
                operations: count, baselineName: "the same API with a monitor that does nothing",
                timings: ownTimings, target: 1.10, note: nil
            ).report())

        // Replay: 10,000 exchanges of one URL, answered in recorded order.
        let replayCount = 10_000 / scale
        let file = folder.appendingPathComponent("replay.har")
        let recorder = try Cassette(file: file, mode: .all, transport: transport, savesEachRecording: false)
        Self.fetchSmall(
            NetworkWorkloads.BenchAPI(baseURL: server.baseURL.absoluteString, transport: recorder),
            count: replayCount)
        try recorder.save()
        var rates: [Double] = []
        for _ in 0..<measurement.repetitions {
            let player = try Cassette(file: file, mode: .none)
            let api = NetworkWorkloads.BenchAPI(baseURL: server.baseURL.absoluteString, transport: player)
            let elapsed = Self.seconds { Self.fetchSmall(api, count: replayCount) }
            rates.append(Double(replayCount) / elapsed)
        }
        let median = rates.sorted()[rates.count / 2]
        lines.append(
            String(
                format:
                    "replay of %d recorded exchanges (one URL, recorded order), 16 in flight: median %.0f requests/s  (target >= 20000)",
                replayCount, median))
        return lines
    }

    static func fetchSmall(_ api: NetworkWorkloads.BenchAPI, count: Int) {
        NetworkWorkloads.drive(count: count, inFlight: 16) { done in
            let item: Promise<NetworkWorkloads.Item> = api.request(route: api.get(endpoint: "/small"))
            item.onResult(in: .global()) { result in
                check((try? result.get())?.id == 1, "GET /small: \(result)")
                done()
            }
        }
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// A monitor that does nothing: what any monitor costs the pipeline (events, no finishing on the
/// transport's queue), for telling the recorder's own cost apart.
struct IgnoringMonitor: EventMonitor {
    func receive(_ event: APIEvent) {}
}

/// The platform's default transport, as an API made without one gets it.
enum DefaultTransportForBench {
    static func make() -> any HTTPTransport {
        #if os(Linux)
            if let curl = CurlTransport() { return curl }
        #endif
        return URLSessionTransport()
    }
}
