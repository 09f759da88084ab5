import Dispatch
import Foundation
import Osprey
import OspreyTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A large body downloaded to a file through `AbstractAPI.download`, against a raw
/// `downloadTask(with:)` of the same URL moved into place; both from a loopback server in this
/// process that streams the body without holding it. Each download runs in a child process of
/// its own (`osprey-bench --download-child osprey|raw URL FILE`), so that its peak resident
/// memory is its own, not the server's or an earlier run's. Every file's size and first and last
/// chunks are checked.
struct DownloadWorkload {
    let bytes: Int
    let repetitions: Int

    static let chunk = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })

    func run() throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = bytes / Self.chunk.count
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/download") { _ in .repeating(Self.chunk, count: count) }
        let url = server.url("/download").absoluteString

        // Alternating runs, raw first, so that both see the same page cache and disk state.
        var results: [String: [(seconds: Double, peak: Int)]] = ["raw": [], "osprey": [], "curl": []]
        #if os(Linux)
            let kinds = ["raw", "osprey", "curl"]
        #else
            let kinds = ["raw", "osprey"]
        #endif
        for run in 0..<repetitions {
            for kind in kinds {
                let file = folder.appendingPathComponent("\(kind)-\(run).bin")
                guard let result = try Self.child(kind, url: url, file: file) else {
                    return ["\(kind) download failed"]
                }
                guard Self.check(file, count: count) else { return ["\(kind) download: wrong file"] }
                try FileManager.default.removeItem(at: file)
                results[kind, default: []].append(result)
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let framework = median(results["osprey"]!.map(\.seconds))
        let raw = median(results["raw"]!.map(\.seconds))
        let ratios = zip(results["raw"]!, results["osprey"]!).map { $0.seconds / $1.seconds }
        let peak = results["osprey"]!.map(\.peak).max() ?? 0
        let rawPeak = results["raw"]!.map(\.peak).max() ?? 0
        let mebibytes = Double(count * Self.chunk.count) / 1_048_576
        var curlLines: [String] = []
        if let curl = results["curl"], !curl.isEmpty {
            let seconds = median(curl.map(\.seconds))
            let curlRatios = zip(results["raw"]!, curl).map { $0.seconds / $1.seconds }
            curlLines.append(
                String(
                    format:
                        "  on CurlTransport: %.2f s (%.0f MiB/s), %.0f %% of raw; peak RSS %.1f MiB (target < 64 MiB)",
                    seconds, mebibytes / seconds, 100 * median(curlRatios),
                    Double(curl.map(\.peak).max() ?? 0) / 1_048_576))
        }
        return [
            String(
                format:
                    "download %.0f MiB to a file, medians of %d alternating runs: Osprey %.2f s (%.0f MiB/s), "
                    + "raw downloadTask %.2f s (%.0f MiB/s)",
                mebibytes, repetitions, framework, mebibytes / framework, raw, mebibytes / raw),
            String(
                format:
                    "  throughput %.0f %% of raw (median of back-to-back pairs, target >= 100 %%); peak RSS of the "
                    + "downloading process %.1f MiB (target < 64 MiB; raw downloadTask's %.1f MiB)",
                100 * median(ratios), Double(peak) / 1_048_576, Double(rawPeak) / 1_048_576),
        ] + curlLines
    }

    /// Runs one download in a child process: its time and peak resident memory, or nil.
    private static func child(_ kind: String, url: String, file: URL) throws -> (seconds: Double, peak: Int)?
    {
        guard let fields = try ChildRun.fields(["--download-child", kind, url, file.path]), fields.count == 2,
            let seconds = Double(fields[0]), let peak = Int(fields[1])
        else { return nil }
        return (seconds, peak)
    }

    /// The child's side: downloads `url` to `file` once and prints the seconds and peak bytes.
    static func runChild(kind: String, url: String, file: URL) -> Int32 {
        final class DownloadAPI: AbstractAPI, @unchecked Sendable {
            init(transport: (any HTTPTransport)? = nil) {
                super.init(responseParser: JSONParser(), transport: transport)
                responseQueue = DispatchQueue(label: "bench.download.response")
                configuration.timeout = 120
            }
        }
        let start = DispatchTime.now()
        let done = DispatchSemaphore(value: 0)
        let succeeded = Locked(false)
        if kind == "raw" {
            let session = URLSession(configuration: .ephemeral)
            session.downloadTask(with: URL(string: url)!) { location, _, _ in
                if let location, (try? FileManager.default.moveItem(at: location, to: file)) != nil {
                    succeeded.withLock { $0 = true }
                }
                done.signal()
            }.resume()
            done.wait()
        } else {
            // "osprey" is URLSessionTransport, named: Linux's default is libcurl.
            var transport: any HTTPTransport = URLSessionTransport()
            #if os(Linux)
                if kind == "curl", let curl = CurlTransport() { transport = curl }
            #endif
            let api = DownloadAPI(transport: transport)
            let download = api.download(route: .get(url), to: file)
            download.finally(in: .global()) { done.signal() }
            done.wait()
            if case .success = download.currentResult { succeeded.withLock { $0 = true } }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        guard succeeded.withLock({ $0 }) else { return 1 }
        print(seconds, ResidentMemory.peakBytes())
        return 0
    }

    /// Whether the file has the expected size and its first and last chunks are right.
    private static func check(_ url: URL, count: Int) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size == UInt64(chunk.count * count) else { return false }
        try? handle.seek(toOffset: 0)
        guard (try? handle.read(upToCount: chunk.count)) == chunk else { return false }
        try? handle.seek(toOffset: UInt64(chunk.count * (count - 1)))
        return (try? handle.read(upToCount: chunk.count)) == chunk
    }
}
