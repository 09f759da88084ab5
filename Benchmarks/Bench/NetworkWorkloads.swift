import Dispatch
import Foundation
import Osprey
import OspreyTesting

/// The framework's overhead on real requests: the same endpoints fetched through raw URLSession
/// (`dataTask` with a completion handler) and through an `AbstractAPI`, sequentially and 16 at a
/// time, for a small JSON body and a 1 MiB body. Both use an ephemeral session of their own with
/// the same configuration. The server is the in-process loopback server, or the one at `server`
/// (`Scripts/bench-nginx.sh` starts nginx with the same two bodies). Every response is checked,
/// in both: an error page is fast.
struct NetworkWorkloads {
    let scale: Int
    let measurement: Measurement
    /// Another server's base URL, serving `/small` and `/large` as the loopback server does.
    var server: URL?
    /// For profiling (`--side raw|osprey|hop|curl`, with `perf stat`, say): run only that side of
    /// the sequential small workload (`hop`: Osprey parsing on the request queue; `curl`: Osprey
    /// on CurlTransport; `curl-one-loop`: on a CurlTransport of one loop; `curl-on-loop`: completed
    /// on the loop; `curl-large`: 1 MiB bodies on CurlTransport), ten times its usual count,
    /// and print its time per request. A suffix `16` (`curl16`) runs the workload with 16
    /// requests in flight instead.
    var side: String?

    static let smallBody = Data(#"{"id": 1, "name": "osprey", "tags": ["a", "b", "c"]}"#.utf8)
    static let largeCount = 1024 * 1024

    struct Item: Decodable, Sendable {
        var id: Int
        var name: String
        var tags: [String]
    }

    final class BenchAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init(
            baseURL: String, transport: (any HTTPTransport)? = nil, parser: any ResponseParser = JSONParser()
        ) {
            self.baseURL = baseURL
            super.init(responseParser: parser, transport: transport)
            responseQueue = DispatchQueue(label: "bench.api.response")
        }
    }

    func run() throws -> [Comparison] {
        let loopback = server == nil ? try LoopbackServer() : nil
        defer { loopback?.stop() }
        loopback?.route("GET", "/small") { _ in .json(Self.smallBody) }
        loopback?.route("GET", "/large") { _ in
            LoopbackServer.Response(body: Data(repeating: 0x61, count: Self.largeCount))
        }
        let baseURL = server ?? loopback!.baseURL
        let counters = loopback.map(ServerCounters.init) ?? server.flatMap { ServerCounters(nginx: $0) }
        // "small" and "large" are Osprey on URLSessionTransport (named: Linux's default is curl).
        let api = BenchAPI(baseURL: baseURL.absoluteString, transport: URLSessionTransport())
        // The same client through a transport wrapper, which Osprey cannot tell settles on a queue
        // of its own: every response is parsed on the request queue, as before small responses
        // were finished where they arrive. The difference between the two is that hop.
        let hopping = BenchAPI(baseURL: baseURL.absoluteString, transport: Forwarding(URLSessionTransport()))
        // The libcurl transport, Linux's default.
        // Its group has a loop per core; beside it, the one loop of 1.0, and the opt-in completion
        // on the loop (validation and parsing where the transfer ended, no hop before settling).
        #if os(Linux)
            let curl = CurlTransport().map { BenchAPI(baseURL: baseURL.absoluteString, transport: $0) }
            let curlOneLoop = CurlTransport(loops: 1).map {
                BenchAPI(baseURL: baseURL.absoluteString, transport: $0)
            }
            let curlOnLoop = CurlTransport().map { BenchAPI(baseURL: baseURL.absoluteString, transport: $0) }
            curlOnLoop?.configuration.completesOnTransportThread = true
        #else
            let curl: BenchAPI? = nil
            let curlOneLoop: BenchAPI? = nil
            let curlOnLoop: BenchAPI? = nil
        #endif
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        let smallURL = baseURL.appendingPathComponent("small")
        let largeURL = baseURL.appendingPathComponent("large")
        // One handler each, where the raw version runs its completion handler; both check what
        // they got.
        var framework: [String: @Sendable (@escaping @Sendable () -> Void) -> Void] = [
            "small": { done in
                let item: Promise<Item> = api.request(route: api.get(endpoint: "/small"))
                item.onResult(in: .global()) { result in
                    check((try? result.get())?.id == 1, "GET /small through Osprey: \(result)")
                    done()
                }
            },
            "small, parsed on the request queue": { done in
                let item: Promise<Item> = hopping.request(route: hopping.get(endpoint: "/small"))
                item.onResult(in: .global()) { result in
                    check((try? result.get())?.id == 1, "GET /small through Osprey: \(result)")
                    done()
                }
            },
            "large": { done in
                let body: Promise<Data> = api.request(route: api.get(endpoint: "/large"))
                body.onResult(in: .global()) { result in
                    check(
                        (try? result.get())?.count == Self.largeCount, "GET /large through Osprey: \(result)")
                    done()
                }
            },
        ]
        for (name, client) in [
            ("small, on CurlTransport with one loop", curlOneLoop),
            ("small, on CurlTransport, completed on the loop", curlOnLoop),
        ] {
            guard let client else { continue }
            framework[name] = { done in
                let item: Promise<Item> = client.request(route: client.get(endpoint: "/small"))
                item.onResult(in: .global()) { result in
                    check((try? result.get())?.id == 1, "GET /small through \(name): \(result)")
                    done()
                }
            }
        }
        if let curl {
            framework["small, on CurlTransport"] = { done in
                let item: Promise<Item> = curl.request(route: curl.get(endpoint: "/small"))
                item.onResult(in: .global()) { result in
                    check((try? result.get())?.id == 1, "GET /small through CurlTransport: \(result)")
                    done()
                }
            }
            framework["large, on CurlTransport"] = { done in
                let body: Promise<Data> = curl.request(route: curl.get(endpoint: "/large"))
                body.onResult(in: .global()) { result in
                    check(
                        (try? result.get())?.count == Self.largeCount,
                        "GET /large through CurlTransport: \(result)")
                    done()
                }
            }
        }
        var comparisons: [Comparison] = []
        let workloads =
            [
                ("small", smallURL, 600 / scale),
                ("small, parsed on the request queue", smallURL, 600 / scale),
                ("large", largeURL, 120 / scale),
            ]
            + (curl == nil
                ? []
                : [
                    ("small, on CurlTransport", smallURL, 600 / scale),
                    ("small, on CurlTransport with one loop", smallURL, 600 / scale),
                    ("small, on CurlTransport, completed on the loop", smallURL, 600 / scale),
                    ("large, on CurlTransport", largeURL, 120 / scale),
                ])
        for (name, url, count) in workloads {
            for inFlight in [1, 16] {
                let raw: () -> Void = {
                    Self.drive(count: count, inFlight: inFlight) { done in
                        session.dataTask(with: url) { data, response, error in
                            let status = (response as? HTTPURLResponse)?.statusCode
                            check(
                                error == nil && status == 200,
                                "GET \(url) raw: \(status ?? 0) \(String(describing: error))")
                            if url == smallURL {
                                let item = data.flatMap { try? JSONDecoder().decode(Item.self, from: $0) }
                                check(item?.id == 1, "GET \(url) raw: not the item")
                            } else {
                                check(
                                    data?.count == Self.largeCount,
                                    "GET \(url) raw: \(data?.count ?? 0) bytes")
                            }
                            done()
                        }.resume()
                    }
                }
                let measured: () -> Void = {
                    Self.drive(count: count, inFlight: inFlight) { done in framework[name]!(done) }
                }
                if let side {
                    // "curl", or "curl16" for 16 in flight.
                    let sideName = side.hasSuffix("16") ? String(side.dropLast(2)) : side
                    let wanted =
                        switch sideName {
                        case "hop": "small, parsed on the request queue"
                        case "curl": "small, on CurlTransport"
                        case "curl-large": "large, on CurlTransport"
                        case "curl-one-loop": "small, on CurlTransport with one loop"
                        case "curl-on-loop": "small, on CurlTransport, completed on the loop"
                        default: "small"
                        }
                    guard name == wanted, inFlight == (side.hasSuffix("16") ? 16 : 1) else { continue }
                    let (start, cpu) = (DispatchTime.now().uptimeNanoseconds, ProcessCPU.seconds())
                    for _ in 0..<10 { sideName == "raw" ? raw() : measured() }
                    let perRequest = (DispatchTime.now().uptimeNanoseconds - start) / UInt64(10 * count)
                    let cpuPerRequest = Int((ProcessCPU.seconds() - cpu) * 1e6) / (10 * count)
                    print(
                        "  \(side) alone: GET \(name) x\(10 * count), \(inFlight) in flight: \(perRequest) ns/request,"
                            + " CPU \(cpuPerRequest) µs per request")
                    return []
                }
                let blocks = MeasuredBlocks(counters: counters)
                let timings = measurement.interleaved(baseline: raw, measured: { blocks.run(measured) })
                let cpuPerRequest = blocks.cpuPerOperation(count)
                let opened = blocks.openedAfterWarmUp
                var note = String(
                    format: "%.0f requests/s, CPU %.0f µs per request (this process)",
                    Double(count) / timings.measured, cpuPerRequest * 1e6)
                if !opened.isEmpty {
                    note +=
                        ", new connections per block after warm-up: \(opened.map(String.init).joined(separator: " "))"
                }
                comparisons.append(
                    Comparison(
                        workload: "GET \(name) x\(count), \(inFlight) in flight",
                        operations: count,
                        baselineName: "raw URLSession",
                        timings: timings,
                        target: Self.target(
                            curl: name.contains("CurlTransport"), large: url == largeURL, inFlight: inFlight),
                        note: note
                    )
                )
                // Connections kept under load: the libcurl transport never closes one to open
                // another, so all its blocks together (warm-up included, which may not reach
                // every connection on a short run) open at most one per request in flight.
                let openedInAll = blocks.all.compactMap(\.opened).reduce(0, +)
                if name.contains("CurlTransport") {
                    check(
                        openedInAll <= inFlight,
                        "GET \(name), \(inFlight) in flight: \(openedInAll) connections opened (blocks: \(blocks.all.compactMap(\.opened))): some were closed and reopened"
                    )
                }
            }
        }
        return comparisons
    }

    /// Runs `count` operations with at most `inFlight` at a time and waits for all of them.
    /// The ratio each workload aims at. Through URLSession (issue 13): small bodies at 90 % of raw
    /// throughput sequentially and 95 % with 16 in flight, 1 MiB bodies at 100 %. On the libcurl
    /// transport (issue 16): 3× raw URLSession's throughput for small bodies sequentially, 5× with
    /// 16 in flight, 2× for 1 MiB bodies.
    private static func target(curl: Bool, large: Bool, inFlight: Int) -> Double {
        if curl { return large ? 1 / 2 : (inFlight == 1 ? 1 / 3 : 1 / 5) }
        return large ? 1 : (inFlight == 1 ? 1 / 0.90 : 1 / 0.95)
    }

    static func drive(count: Int, inFlight: Int, _ start: (@escaping @Sendable () -> Void) -> Void) {
        let slots = DispatchSemaphore(value: inFlight)
        let group = DispatchGroup()
        for _ in 0..<count {
            slots.wait()
            group.enter()
            start {
                slots.signal()
                group.leave()
            }
        }
        group.wait()
    }
}

/// Forwards to another transport: the pipeline sees a transport it knows nothing about.
struct Forwarding: HTTPTransport {
    let base: any HTTPTransport

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    func send(_ request: TransportRequest) -> Promise<TransportResponse> {
        base.send(request)
    }
}
