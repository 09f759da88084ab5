import Foundation
import Osprey
import OspreyTesting
import Testing

/// Downloads and progress against a third-party server: `/range` resumes, `/bytes` and
/// `/stream-bytes` arrive whole, `/drip` reports progress.
@Suite(
    "httpbin: transfers",
    .enabled(if: Httpbin.baseURL != nil, "HTTPBIN_URL is not set: run the tests with Scripts/test.sh")
)
struct HttpbinTransferTests {
    final class HttpbinAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init() {
            baseURL = Httpbin.baseURL!.absoluteString
            super.init(responseParser: JSONParser(), transport: TestTransport.make())
            responseQueue = DispatchQueue(label: "httpbin.transfers.response")
        }
    }

    let api = HttpbinAPI()

    /// What `/range/N` serves: the alphabet, repeated.
    static func alphabet(count: Int) -> Data {
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        return Data((0..<count).map { letters[$0 % 26] })
    }

    @Test("/range: a download cancelled part way resumes with a 206 and ends byte-identical")
    func rangeResumes() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let destination = folder.file("range.txt")
        let count = 60_000
        // Slowly, so that it can be cancelled in the middle.
        let slow = api.get(endpoint: "/range/\(count)?duration=10&chunk_size=1000")
        let first = api.download(route: slow, to: destination)
        // Cancelled from the progress handler itself, on the API's queue: prompt even when the
        // test's own task is slow to resume (under ThreadSanitizer, beside the stress tests).
        first.onProgress { progress in
            if progress.completedBytes >= 5000 { first.cancel() }
        }
        #expect(await first.result.isCancellation)
        #expect(folder.contents.count == 2)

        let events = Locked<[APIEvent]>([])
        api.configuration.monitors = [ClosureMonitor { event in events.withLock { $0.append(event) } }]
        let saved = try await api.download(route: slow, to: destination).value
        #expect(try Data(contentsOf: saved) == Self.alphabet(count: count))
        #expect(folder.contents == ["range.txt"])
        let statuses = events.withLock { $0 }.compactMap(\.response?.statusCode)
        #expect(statuses.contains(206), "\(statuses)")
    }

    @Test("/bytes and /stream-bytes download whole, as raw URLSession gets them")
    func bytes() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        for path in ["/bytes/70000?seed=7", "/stream-bytes/70000?seed=7&chunk_size=4096"] {
            let destination = folder.file(UUID().uuidString)
            let saved = try await api.download(route: api.get(endpoint: path), to: destination).value
            let (expected, _) = try await URLSession.shared.fetch(
                URLRequest(url: URL(string: api.baseURL + path)!))
            #expect(try Data(contentsOf: saved) == expected, "\(path)")
            #expect(expected.count == 70000)
        }
    }

    @Test("/drip reports progress to its end")
    func drip() async throws {
        let log = ProgressLog()
        let data: Data = try await api.request(
            route: api.get(endpoint: "/drip?numbytes=2000&duration=1&delay=0")
        )
        .onProgress { log.append($0) }.value
        await withCheckedContinuation { done in api.responseQueue.async { done.resume() } }
        #expect(data.count == 2000)
        let reports = log.all
        #expect(reports.count >= 2, "\(reports)")
        #expect(reports.last?.completedBytes == 2000)
        for (earlier, later) in zip(reports, reports.dropFirst()) {
            #expect(earlier.completedBytes <= later.completedBytes)
        }
    }
}
