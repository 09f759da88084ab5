import Foundation

// osprey-bench: `swift run -c release osprey-bench` measures; `--quick` runs every workload at
// 1/100 size once, checking the exactly-once bookkeeping without measuring anything (CI);
// `--only W1` runs one workload (for profiling); `--server URL` points the network workloads at
// another server (Scripts/bench-nginx.sh).

// A child process of the download workload: one download, then its time and peak memory.
if let index = CommandLine.arguments.firstIndex(of: "--download-child"),
    CommandLine.arguments.count >= index + 4
{
    let arguments = CommandLine.arguments
    exit(
        DownloadWorkload.runChild(
            kind: arguments[index + 1], url: arguments[index + 2],
            file: URL(fileURLWithPath: arguments[index + 3])))
}

// A child process of the stream workload: one run, then its time, peak memory and count.
if let index = CommandLine.arguments.firstIndex(of: "--stream-child"),
    CommandLine.arguments.count >= index + 3
{
    exit(
        StreamWorkload.runChild(kind: CommandLine.arguments[index + 1], url: CommandLine.arguments[index + 2])
    )
}

// A child process of the WebSocket workload: one echo run, then its time and memory.
if let index = CommandLine.arguments.firstIndex(of: "--websocket-child"),
    CommandLine.arguments.count >= index + 4, let amount = Int(CommandLine.arguments[index + 3])
{
    exit(
        WebSocketWorkload.runChild(
            kind: CommandLine.arguments[index + 1], url: CommandLine.arguments[index + 2], amount: amount))
}

let quick = CommandLine.arguments.contains("--quick")

/// The value after `flag` on the command line (`--server URL`), or nil.
func argument(after flag: String) -> String? {
    CommandLine.arguments.firstIndex(of: flag).flatMap {
        CommandLine.arguments.indices.contains($0 + 1) ? CommandLine.arguments[$0 + 1] : nil
    }
}
/// `--server URL`: another server with the same bodies (Scripts/bench-nginx.sh).
let server = argument(after: "--server").flatMap { URL(string: $0) }
let measurement = Measurement(repetitions: quick ? 1 : 7)
let scale = quick ? 100 : 1
let only = argument(after: "--only")

print("osprey-bench\(quick ? " --quick (smoke run: sizes / 100, times meaningless)" : "")")
print("Each line: medians over \(measurement.repetitions) runs of the workload and of a baseline run in")
print("alternation with it, and the median ratio of back-to-back runs.\n")

if only == nil || only?.hasPrefix("W") == true {
    print("Promises")
}
for comparison in PromiseWorkloads(scale: scale, measurement: measurement, only: only).run() {
    print("  " + comparison.report())
}

if only == nil || only == "network" {
    print(
        "\nRequests against \(server.map { "the server at \($0.absoluteString)" } ?? "the loopback server") (ratio = time"
    )
    print("per request vs raw URLSession; 1.05 = 95 % of its throughput)")
    let side = argument(after: "--side")
    let workloads = NetworkWorkloads(
        scale: quick ? 20 : 1, measurement: measurement, server: server, side: side)
    for comparison in try workloads.run() {
        print("  " + comparison.report())
    }
}

// W5 and W6 (HTTPS): `--https http1URL,http2URL --ca FILE`, as Scripts/bench-nginx.sh passes them.
if only == nil || only == "network" || only == "https",
    let https = argument(after: "--https"),
    let ca = argument(after: "--ca")
{
    let servers = https.split(separator: ",").compactMap { URL(string: String($0)) }
    if servers.count == 2 {
        print(
            "\nRequests over HTTPS against \(servers[0].absoluteString) (HTTP/1.1) and \(servers[1].absoluteString)"
        )
        print("(HTTP/2), TLS 1.3, 16 in flight (ratio = time per request vs raw URLSession)")
        let workloads = TLSWorkloads(
            scale: quick ? 20 : 1, measurement: measurement, http1Server: servers[0], http2Server: servers[1],
            authority: URL(fileURLWithPath: ca), counters: server.flatMap { ServerCounters(nginx: $0) },
            side: argument(after: "--side"))
        for comparison in workloads.run() {
            print("  " + comparison.report())
        }
    }
}

if only == nil || only == "recording" {
    print("\nRecording and replaying traffic (Cassette, HAR)")
    for line in try RecordingWorkloads(scale: quick ? 20 : 1, measurement: measurement).run() {
        print("  " + line)
    }
}

if only == nil || only == "fairness" {
    print("\nFairness (a slow parser's neighbours on the same transport)")
    let fairness = FairnessWorkload(count: quick ? 30 : 600, measurement: measurement, server: server)
    #if os(Linux)
        let transports = [false, true]
    #else
        let transports = [false]
    #endif
    for curl in transports {
        for inline in [false, true] {
            let (comparison, slowBodies) = try fairness.run(inline: inline, curl: curl)
            print("  " + comparison.report() + "  (\(slowBodies) slow bodies parsed)")
        }
    }
}

// Run alone for a meaningful peak RSS: `osprey-bench --only upload` (the full run includes it
// last, after the promise workloads have raised the process's peak).
if only == nil || only == "upload" {
    print("\nUpload (multipart file part streamed from disk)")
    let upload = UploadWorkload(bytes: quick ? 16 * 1_048_576 : 1024 * 1_048_576, repetitions: quick ? 1 : 3)
    for line in try upload.run() {
        print("  " + line)
    }
}

// Each download runs in a process of its own, for its own peak RSS.
if only == nil || only == "download" {
    print("\nDownload (to a file, streamed to disk)")
    let download = DownloadWorkload(
        bytes: quick ? 16 * 1_048_576 : 1024 * 1_048_576, repetitions: quick ? 1 : 3)
    for line in try download.run() {
        print("  " + line)
    }
}

// Each run in a process of its own, for its own peak RSS; 1 GiB and 64 MiB of events against
// nginx with `Scripts/bench-nginx.sh --only stream`.
if only == nil || only == "stream" {
    print(
        "\nStreaming (ResponseStream on the default transport, against \(server?.absoluteString ?? "loopback"))"
    )
    let stream = StreamWorkload(
        bytes: quick ? 16 * 1_048_576 : 1024 * 1_048_576, eventBytes: quick ? 1_048_576 : 64 * 1_048_576,
        repetitions: quick ? 1 : 3, server: server)
    for line in try stream.run() {
        print("  " + line)
    }
}

// Against Python's websockets echo server: `Scripts/bench-websocket.sh`, which passes its URL.
if let url = argument(after: "--websocket"), only == nil || only == "websocket" {
    print("\nWebSocket echo (CurlTransport, against \(url))")
    let workload = WebSocketWorkload(
        url: url, roundTrips: quick ? 100 : 10_000, bytes: quick ? 4 << 20 : 256 << 20,
        repetitions: quick ? 1 : 3)
    for line in try workload.run() {
        print("  " + line)
    }
}
