import Dispatch
import Foundation
import Osprey

/// WebSocket echo against an independent server (Python's `websockets`, started by
/// `Scripts/bench-websocket.sh`, which also runs the `websockets` client on the same server for
/// comparison): 10,000 round trips of a small text message, one at a time, and 256 MiB of
/// binary in 64 KiB messages, sent while their echoes are read. Each run is a child process of
/// its own (`osprey-bench --websocket-child small|large URL`), for its own peak resident memory;
/// every echo is checked.
struct WebSocketWorkload {
    let url: String
    let roundTrips: Int
    let bytes: Int
    let repetitions: Int

    static let frameSize = 64 << 10

    final class EchoAPI: AbstractAPI, @unchecked Sendable {}

    func run() throws -> [String] {
        var small: [(seconds: Double, peak: Int, baseline: Int)] = []
        var large: [(seconds: Double, peak: Int, baseline: Int)] = []
        for _ in 0..<repetitions {
            guard let one = try Self.child(["small", url, String(roundTrips)]),
                let two = try Self.child(["large", url, String(bytes)])
            else { return ["websocket echo failed"] }
            small.append(one)
            large.append(two)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let smallSeconds = median(small.map(\.seconds))
        let largeSeconds = median(large.map(\.seconds))
        let mebibytes = Double(bytes) / 1_048_576
        let over = { (runs: [(seconds: Double, peak: Int, baseline: Int)]) in
            Double(runs.map { $0.peak - $0.baseline }.max() ?? 0) / 1_048_576
        }
        return [
            String(
                format:
                    "echo %d small messages one at a time: %.2f s, %.0f messages/s; peak RSS %.1f MiB over the idle baseline",
                roundTrips, smallSeconds, Double(roundTrips) / smallSeconds, over(small)),
            String(
                format:
                    "echo %.0f MiB in 64 KiB messages: %.2f s, %.0f MiB/s; peak RSS %.1f MiB over the idle baseline (target < 64)",
                mebibytes, largeSeconds, mebibytes / largeSeconds, over(large)),
        ]
    }

    /// Runs `osprey-bench --websocket-child ARGUMENTS`: its seconds, peak and baseline bytes.
    private static func child(_ arguments: [String]) throws -> (seconds: Double, peak: Int, baseline: Int)? {
        guard let fields = try ChildRun.fields(["--websocket-child"] + arguments), fields.count == 3,
            let seconds = Double(fields[0]), let peak = Int(fields[1]), let baseline = Int(fields[2])
        else { return nil }
        return (seconds, peak, baseline)
    }

    /// The child's run: prints `seconds peak baseline`, or exits non-zero when an echo is wrong.
    static func runChild(kind: String, url: String, amount: Int) -> Int32 {
        guard let transport = CurlTransport(loops: 1) else { return 2 }
        let api = EchoAPI(responseParser: JSONParser(), transport: transport)
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<(Double, Int, Int)?>(nil)
        Task {
            defer { done.signal() }
            do {
                let socket = try await api.webSocket(route: .get(Endpoint(verbatim: url))).value
                let baseline = ResidentMemory.currentBytes()
                let started = DispatchTime.now()
                if kind == "small" {
                    var iterator = socket.messages.makeAsyncIterator()
                    for index in 0..<amount {
                        let text = "message \(index)"
                        try await socket.send(text: text).value
                        guard try await iterator.next() == .text(text) else { return }
                    }
                } else {
                    let count = amount / frameSize
                    let sender = Task {
                        for index in 0..<count {
                            try await socket.send(
                                data: Data(repeating: UInt8(truncatingIfNeeded: index), count: frameSize)
                            ).value
                        }
                    }
                    var index = 0
                    for try await message in socket.messages {
                        guard case .binary(let data) = message, data.count == frameSize,
                            data.first == UInt8(truncatingIfNeeded: index), data.last == data.first
                        else { return }
                        index += 1
                        if index == count { break }
                    }
                    try await sender.value
                    guard index == count else { return }
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                _ = try await socket.close().value
                outcome.withLock { $0 = (seconds, ResidentMemory.peakBytes(), baseline) }
            } catch {
                FileHandle.standardError.write(Data("websocket \(kind): \(error)\n".utf8))
            }
        }
        done.wait()
        guard let (seconds, peak, baseline) = outcome.withLock({ $0 }) else { return 1 }
        print("\(seconds) \(peak) \(baseline)")
        return 0
    }
}
