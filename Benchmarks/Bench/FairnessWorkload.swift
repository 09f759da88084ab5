import Dispatch
import Foundation
import Osprey
import OspreyTesting

/// How much one slow parser holds up the other requests that share its transport (and so its
/// delegate queue, where small responses may be parsed): 15 small requests in flight on one API,
/// alone and beside a second API on the same transport whose parser takes 20 ms per body, one
/// request in flight after another. A ratio of 1.00 means the neighbour holds no one up.
struct FairnessWorkload {
    let count: Int
    let measurement: Measurement
    var server: URL?

    /// Takes 20 ms per body, as a parser doing heavy work would.
    final class SlowParser: JSONParser, @unchecked Sendable {
        // @unchecked: no state of its own.
        override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
            Thread.sleep(forTimeInterval: 0.020)
            return try super.getInstance(from: data, response: response)
        }
    }

    /// - Parameters:
    ///   - inline: Whether small responses may be parsed where the transport completes them;
    ///     without, both APIs go through a ``Forwarding`` wrapper, as before that existed.
    ///   - curl: Whether the shared transport is `CurlTransport` (its delivery queue is then
    ///     where small responses are parsed) rather than `URLSessionTransport`.
    func run(inline: Bool, curl: Bool = false) throws -> (Comparison, slowBodies: Int) {
        let loopback = server == nil ? try LoopbackServer() : nil
        defer { loopback?.stop() }
        loopback?.route("GET", "/small") { _ in .json(NetworkWorkloads.smallBody) }
        let baseURL = (server ?? loopback!.baseURL).absoluteString
        var shared: any HTTPTransport = URLSessionTransport()
        #if os(Linux)
            if curl, let transport = CurlTransport() { shared = transport }
        #endif
        let transport: any HTTPTransport = inline ? shared : Forwarding(shared)
        let fast = NetworkWorkloads.BenchAPI(baseURL: baseURL, transport: transport)
        let slow = NetworkWorkloads.BenchAPI(baseURL: baseURL, transport: transport, parser: SlowParser())

        let fastRun: () -> Void = {
            NetworkWorkloads.drive(count: count, inFlight: 15) { done in
                let item: Promise<NetworkWorkloads.Item> = fast.request(route: fast.get(endpoint: "/small"))
                item.onResult(in: .global()) { result in
                    check((try? result.get())?.id == 1, "GET /small beside a slow parser: \(result)")
                    done()
                }
            }
        }
        let slowBodies = Locked(0)
        let besideSlow: () -> Void = {
            let running = Locked(true)
            let stopped = DispatchSemaphore(value: 0)
            // One slow request after another, until the fast ones are done.
            @Sendable func next() {
                guard running.withLock({ $0 }) else {
                    stopped.signal()
                    return
                }
                let item: Promise<NetworkWorkloads.Item> = slow.request(route: slow.get(endpoint: "/small"))
                item.onResult(in: .global()) { result in
                    check((try? result.get())?.id == 1, "GET /small through the slow parser: \(result)")
                    slowBodies.withLock { $0 += 1 }
                    next()
                }
            }
            next()
            fastRun()
            running.withLock { $0 = false }
            stopped.wait()
        }
        let comparison = Comparison(
            workload:
                "GET small x\(count), 15 in flight on \(curl ? "CurlTransport" : "URLSessionTransport"), beside a 20 ms parser, \(inline ? "inline parsing" : "parsing on the request queue")",
            operations: count,
            baselineName: "alone",
            timings: measurement.interleaved(baseline: fastRun, measured: besideSlow),
            target: nil
        )
        return (comparison, slowBodies.withLock { $0 })
    }
}
