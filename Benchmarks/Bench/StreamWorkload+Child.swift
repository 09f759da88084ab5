import Dispatch
import Foundation
import Osprey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StreamWorkload {
    /// The child's side: one run of `kind` (`download`, `stream`, `slow` or `events`) against
    /// `url`, then its seconds, peak resident bytes and count printed on one line; non-zero when
    /// the body was not what it should be.
    static func runChild(kind: String, url: String) -> Int32 {
        final class StreamAPI: AbstractAPI, @unchecked Sendable {
            init() {
                super.init(responseParser: JSONParser())
                responseQueue = DispatchQueue(label: "bench.stream.response")
                configuration.timeout = 120
            }
        }
        let api = StreamAPI()
        let route = Route.get(url)
        let outcome = Locked<Result<Int, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now()
        Task {
            let result: Result<Int, any Error>
            do {
                switch kind {
                case "download": result = .success(try await download(api, route))
                case "events": result = .success(try await countEvents(api.stream(route: route)))
                default:
                    result = .success(try await readBody(api.stream(route: route), sleeping: kind == "slow"))
                }
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        switch outcome.withLock({ $0 }) {
        case .success(let count)?:
            print(seconds, ResidentMemory.peakBytes(), count)
            return 0
        case .failure(let error)?:
            print("failed: \(error)")
            return 1
        case nil:
            return 1
        }
    }

    /// Downloads to a temporary file, then checks it (untimed would be fairer to the stream,
    /// which checks as it reads; the check is a small part of either).
    private static func download(_ api: AbstractAPI, _ route: Route) async throws -> Int {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-bench-stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await api.download(route: route, to: file).value
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var checker = PatternChecker()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            try checker.check(piece)
        }
        return checker.offset
    }

    /// Reads the body through the stream, checking every byte; `sleeping` waits 1 ms per piece.
    private static func readBody(_ stream: ResponseStream, sleeping: Bool) async throws -> Int {
        var checker = PatternChecker()
        for try await piece in stream {
            try checker.check(piece)
            if sleeping { try await Task.sleep(nanoseconds: 1_000_000) }
        }
        return checker.offset
    }

    /// Counts the events, each of which must carry its own number.
    private static func countEvents(_ stream: ResponseStream) async throws -> Int {
        var count = 0
        for try await event in stream.events {
            guard Int(event.data) == count else { throw WrongBody(offset: count) }
            count += 1
        }
        return count
    }
}

/// The body differed from the pattern at `offset` (a byte, or an event's number).
struct WrongBody: Error {
    var offset: Int
}

/// Compares a body, piece by piece, with ``DownloadWorkload/chunk`` repeated.
struct PatternChecker {
    private(set) var offset = 0

    mutating func check(_ piece: Data) throws {
        let chunk = DownloadWorkload.chunk
        var position = piece.startIndex
        while position < piece.endIndex {
            let inChunk = offset % chunk.count
            let length = min(piece.endIndex - position, chunk.count - inChunk)
            let same = piece[position..<position + length].withUnsafeBytes { got in
                chunk.withUnsafeBytes { expected in
                    memcmp(got.baseAddress!, expected.baseAddress! + inChunk, length) == 0
                }
            }
            guard same else { throw WrongBody(offset: offset) }
            position += length
            offset += length
        }
    }
}
