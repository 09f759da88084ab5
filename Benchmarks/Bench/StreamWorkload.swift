import Dispatch
import Foundation
import Osprey
import OspreyTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streaming on the default transport (libcurl on Linux): a large body read through a
/// `ResponseStream` against the same body downloaded to a file with `AbstractAPI.download`; the
/// same stream read by a consumer that sleeps 1 ms per piece (its peak memory shows the
/// backpressure); and the events of a long `text/event-stream` of small events, per second.
///
/// Against `--server` (Scripts/bench-nginx.sh: `/huge`, 1 GiB in the pattern of
/// ``DownloadWorkload/chunk``, and `/events`, 64 MiB of `data: N` events) or, without one, a
/// loopback server in this process. Every run is a child process of its own (`osprey-bench
/// --stream-child KIND URL`), for its own peak resident memory. Every byte of the body is
/// checked against the pattern, and every event's number against its place.
struct StreamWorkload {
    let bytes: Int
    let eventBytes: Int
    let repetitions: Int
    let server: URL?

    /// One child's report: seconds, peak resident bytes, and what it counted (bytes or events).
    struct Report {
        var seconds: Double
        var peak: Int
        var count: Int
    }

    func run() throws -> [String] {
        let loopback = server == nil ? try LoopbackServer() : nil
        defer { loopback?.stop() }
        let base: URL
        if let server {
            base = server
        } else if let loopback {
            let count = bytes / DownloadWorkload.chunk.count
            loopback.route("GET", "/huge") { _ in .repeating(DownloadWorkload.chunk, count: count) }
            let events = Self.eventStream(bytes: eventBytes)
            loopback.route("GET", "/events") { _ in
                .init(headers: [.init("Content-Type", "text/event-stream")], body: events)
            }
            base = loopback.baseURL
        } else {
            return []
        }
        let huge = base.appendingPathComponent("huge").absoluteString
        let events = base.appendingPathComponent("events").absoluteString

        var downloads: [Report] = []
        var streams: [Report] = []
        for _ in 0..<repetitions {
            downloads.append(try Self.child("download", url: huge))
            streams.append(try Self.child("stream", url: huge))
        }
        for report in downloads + streams {
            check(report.count == bytes, "expected \(bytes) bytes, the child counted \(report.count)")
        }
        let slow = try Self.child("slow", url: huge)
        check(slow.count == bytes, "the slow consumer counted \(slow.count) bytes of \(bytes)")
        var parsed: [Report] = []
        for _ in 0..<repetitions { parsed.append(try Self.child("events", url: events)) }

        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let mebibytes = Double(bytes) / 1_048_576
        let download = median(downloads.map(\.seconds))
        let stream = median(streams.map(\.seconds))
        let ratios = zip(downloads, streams).map { $0.seconds / $1.seconds }
        let eventRates = parsed.map { Double($0.count) / $0.seconds }
        return [
            String(
                format: "%.0f MiB, medians of %d alternating runs: ResponseStream %.2f s (%.0f MiB/s), "
                    + "download to a file %.2f s (%.0f MiB/s)",
                mebibytes, repetitions, stream, mebibytes / stream, download, mebibytes / download),
            String(
                format:
                    "  throughput %.0f %% of the download (median of back-to-back pairs, target >= 90 %%); "
                    + "peak RSS %.1f MiB streaming, %.1f MiB downloading",
                100 * median(ratios), Double(streams.map(\.peak).max() ?? 0) / 1_048_576,
                Double(downloads.map(\.peak).max() ?? 0) / 1_048_576),
            String(
                format: "  a consumer sleeping 1 ms per piece: %.1f s, peak RSS %.1f MiB (target < 64 MiB)",
                slow.seconds, Double(slow.peak) / 1_048_576),
            String(
                format: "events: %d in %.0f MiB, median %.0f events/s (target >= 500000), peak RSS %.1f MiB",
                parsed.first?.count ?? 0, Double(eventBytes) / 1_048_576, median(eventRates),
                Double(parsed.map(\.peak).max() ?? 0) / 1_048_576),
        ]
    }

    /// `data: 0`, `data: 1`, … each a small event, up to about `bytes` (Scripts/bench-nginx.sh
    /// writes the same file).
    static func eventStream(bytes: Int) -> Data {
        var text = Data()
        text.reserveCapacity(bytes + 32)
        var number = 0
        while text.count < bytes {
            text.append(contentsOf: "data: \(number)\n\n".utf8)
            number += 1
        }
        return text
    }

    /// Runs one child and reads its report.
    private static func child(_ kind: String, url: String) throws -> Report {
        var output = ""
        let fields = try ChildRun.fields(["--stream-child", kind, url]) { output = $0 } ?? []
        guard fields.count == 3, let seconds = Double(fields[0]), let peak = Int(fields[1]),
            let count = Int(fields[2])
        else {
            check(false, "the \(kind) child failed: \(output)")
            return Report(seconds: 0, peak: 0, count: 0)
        }
        return Report(seconds: seconds, peak: peak, count: count)
    }
}
