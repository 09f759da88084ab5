import Dispatch
import Foundation
import Osprey
import OspreyTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A large file part uploaded through `MultipartParameters` (written to a temporary multipart
/// file, then streamed), against a raw `uploadTask(with:fromFile:)` of the same file; both to a
/// loopback server that counts the bytes without keeping them. Reports throughput and the
/// process's peak resident memory (after every run: the raw uploads stream from disk too).
struct UploadWorkload {
    let bytes: Int
    let repetitions: Int

    func run() throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("payload.bin")
        try Self.writeFile(at: file, bytes: bytes)

        let server = try LoopbackServer(configuration: .init(maximumBodyBytes: .max, discardsBodies: true))
        defer { server.stop() }
        server.route("POST", "/upload") { _ in LoopbackServer.Response(status: 204) }

        final class UploadAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
            let baseURL: String
            init(baseURL: String, transport: any HTTPTransport) {
                self.baseURL = baseURL
                super.init(responseParser: JSONParser(), transport: transport)
                responseQueue = DispatchQueue(label: "bench.upload.response")
                configuration.timeout = 120
            }
        }
        // Against raw URLSession, on URLSessionTransport (Linux's default is libcurl); and on
        // CurlTransport where there is one.
        let api = UploadAPI(baseURL: server.baseURL.absoluteString, transport: URLSessionTransport())
        #if os(Linux)
            let curl = CurlTransport().map {
                UploadAPI(baseURL: server.baseURL.absoluteString, transport: $0)
            }
        #else
            let curl: UploadAPI? = nil
        #endif
        let parameters = MultipartParameters(parts: [Part(name: "file", fileURL: file)])
        parameters.temporaryDirectory = folder

        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        // Alternating runs, raw first, so that both see the same page cache and disk state.
        var frameworkTimes: [Double] = []
        var rawTimes: [Double] = []
        var curlTimes: [Double] = []
        for _ in 0..<repetitions {
            let rawStart = DispatchTime.now()
            let rawDone = DispatchSemaphore(value: 0)
            session.uploadTask(with: request, fromFile: file) { _, _, _ in rawDone.signal() }.resume()
            rawDone.wait()
            rawTimes.append(Self.seconds(since: rawStart))

            guard let osprey = Self.upload(parameters, through: api, to: server, bytes: bytes) else {
                return ["upload through URLSessionTransport failed"]
            }
            frameworkTimes.append(osprey)
            if let curl {
                guard let seconds = Self.upload(parameters, through: curl, to: server, bytes: bytes) else {
                    return ["upload through CurlTransport failed"]
                }
                curlTimes.append(seconds)
            }
        }
        let peak = ResidentMemory.peakBytes()
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let framework = median(frameworkTimes)
        let raw = median(rawTimes)
        let ratios = zip(rawTimes, frameworkTimes).map { $0 / $1 }

        let mebibytes = Double(bytes) / 1_048_576
        return [
            String(
                format:
                    "upload %.0f MiB file part, medians of %d alternating runs: Osprey %.2f s (%.0f MiB/s), "
                    + "raw uploadTask(fromFile:) %.2f s (%.0f MiB/s)",
                mebibytes, repetitions, framework, mebibytes / framework, raw, mebibytes / raw),
            String(
                format:
                    "  throughput %.0f %% of raw (median of back-to-back pairs, target >= 80 %%); "
                    + "peak RSS %.1f MiB (target < 64 MiB)",
                100 * median(ratios), Double(peak) / 1_048_576),
        ]
            + (curlTimes.isEmpty
                ? []
                : [
                    String(
                        format:
                            "  on CurlTransport: %.2f s (%.0f MiB/s), %.0f %% of raw (peak RSS: the line above's)",
                        median(curlTimes), mebibytes / median(curlTimes),
                        100 * median(zip(rawTimes, curlTimes).map { $0 / $1 }))
                ])
    }

    /// One upload through `client`; its time in seconds, nil if it failed or the server did not
    /// count the whole body.
    private static func upload(
        _ parameters: MultipartParameters, through client: some AbstractAPI & BaseAPI,
        to server: LoopbackServer,
        bytes: Int
    ) -> Double? {
        let start = DispatchTime.now()
        let done = DispatchSemaphore(value: 0)
        let upload: Promise<Void> = client.request(
            route: client.post(endpoint: "/upload"), parameters: parameters)
        upload.finally(in: .global()) { done.signal() }
        done.wait()
        let seconds = Self.seconds(since: start)
        guard case .success = upload.currentResult, server.requests.last?.bodyLength ?? 0 > bytes else {
            print("upload failed: \(String(describing: upload.currentResult))")
            return nil
        }
        return seconds
    }

    private static func writeFile(at url: URL, bytes: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let chunk = Data(repeating: 0x5A, count: 1_048_576)
        var written = 0
        while written < bytes {
            let piece = min(chunk.count, bytes - written)
            try handle.write(contentsOf: piece == chunk.count ? chunk : chunk.prefix(piece))
            written += piece
        }
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
