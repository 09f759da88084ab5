import Dispatch
import Foundation
import Osprey
import Promises

/// W5 and W6: the small workload with 16 requests in flight over HTTPS, against nginx with a
/// throwaway CA (`Scripts/bench-nginx.sh` makes it): W5 on a server that speaks HTTP/1.1 only
/// (TLS 1.3), W6 on one that offers HTTP/2 (one connection carries every request). Raw URLSession
/// is the baseline; it trusts only the system's store on Linux, so the script runs the benchmark
/// in a mount namespace of its own whose system bundle has the CA appended. Each row says the
/// HTTP version every client used (nginx names it in an `X-Protocol` header) and the connections
/// opened after the warm-up. Osprey is measured on CurlTransport (in both completion modes) and on
/// URLSessionTransport.
struct TLSWorkloads {
    let scale: Int
    let measurement: Measurement
    /// The HTTP/1.1-only server and the HTTP/2 one, both `https://localhost:PORT`.
    let http1Server: URL
    let http2Server: URL
    /// The CA that signed both servers' certificate (PEM).
    let authority: URL
    /// nginx's plain-http side, whose `/nginx_status` counts the connections of every side.
    let counters: ServerCounters?
    /// One Osprey row alone, for profiling (`--side w5`, `w6`, `w5-on-loop`, `w6-on-loop`): ten
    /// runs of it, no baseline, with the time and this process's CPU per request.
    var side: String? = nil

    func run() -> [Comparison] {
        #if os(Linux)
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            var comparisons: [Comparison] = []
            for (label, server) in [
                ("W5, HTTPS over HTTP/1.1", http1Server), ("W6, HTTPS over HTTP/2", http2Server),
            ] {
                let url = server.appendingPathComponent("small")
                // CurlTransport in both modes, then URLSessionTransport (which, like raw URLSession,
                // trusts the namespace's system bundle).
                for (kind, onLoop) in [(TransportKind.curl, false), (.curl, true), (.urlSession, false)] {
                    let transport: any HTTPTransport
                    switch kind {
                    case .curl:
                        guard let curl = CurlTransport(trustedCertificates: authority) else { continue }
                        transport = curl
                    case .urlSession:
                        guard side == nil else { continue }
                        transport = URLSessionTransport()
                    }
                    let rawVersions = Versions()
                    let raw: () -> Void = {
                        NetworkWorkloads.drive(count: 600 / scale, inFlight: 16) { done in
                            session.dataTask(with: url) { data, response, error in
                                let http = response as? HTTPURLResponse
                                check(
                                    error == nil && http?.statusCode == 200,
                                    "GET \(url) raw: \(http?.statusCode ?? 0) \(String(describing: error))")
                                let item = data.flatMap {
                                    try? JSONDecoder().decode(NetworkWorkloads.Item.self, from: $0)
                                }
                                check(item?.id == 1, "GET \(url) raw: not the item")
                                rawVersions.note(http?.value(forHTTPHeaderField: "X-Protocol"))
                                done()
                            }.resume()
                        }
                    }
                    let api = NetworkWorkloads.BenchAPI(baseURL: server.absoluteString, transport: transport)
                    api.configuration.completesOnTransportThread = onLoop
                    let versions = Versions()
                    let measured: () -> Void = {
                        NetworkWorkloads.drive(count: 600 / scale, inFlight: 16) { done in
                            let item: Promise<APIResponse<NetworkWorkloads.Item>> = api.request(
                                route: api.get(endpoint: "/small"))
                            item.onResult(in: .global()) { result in
                                let response = try? result.get()
                                check(response?.value.id == 1, "GET \(url) through Osprey: \(result)")
                                versions.note(response?.headers["X-Protocol"])
                                done()
                            }
                        }
                    }
                    if let side {
                        let wanted = (label.hasPrefix("W5") ? "w5" : "w6") + (onLoop ? "-on-loop" : "")
                        guard side == wanted else { continue }
                        let count = 10 * (600 / scale)
                        let (start, cpu) = (DispatchTime.now().uptimeNanoseconds, ProcessCPU.seconds())
                        for _ in 0..<10 { measured() }
                        let elapsed = DispatchTime.now().uptimeNanoseconds - start
                        print(
                            "  \(side) alone: GET small x\(count), 16 in flight: \(elapsed / UInt64(count)) ns/request,"
                                + " CPU \(Int((ProcessCPU.seconds() - cpu) * 1e6) / count) µs per request;"
                                + " versions: \(versions.summary)")
                        return []
                    }
                    let blocks = MeasuredBlocks(counters: counters)
                    let timings = measurement.interleaved(baseline: raw, measured: { blocks.run(measured) })
                    let cpu = blocks.cpuPerOperation(600 / scale)
                    let opened = blocks.openedAfterWarmUp.map(String.init).joined(separator: " ")
                    comparisons.append(
                        Comparison(
                            workload:
                                "\(label): GET small on \(kind.rawValue)\(onLoop ? ", completed on the loop" : "") x\(600 / scale), 16 in flight",
                            operations: 600 / scale,
                            baselineName: "raw URLSession",
                            timings: timings,
                            target: 1 / (label.hasPrefix("W5") ? 9 : 5),
                            note: String(
                                format:
                                    "%.0f requests/s, CPU %.0f µs per request; versions: Osprey %@, raw %@",
                                Double(600 / scale) / timings.measured, cpu * 1e6, versions.summary,
                                rawVersions.summary)
                                + (opened.isEmpty
                                    ? "" : "; new connections per block after warm-up: \(opened)")))
                }
            }
            return comparisons
        #else
            return []
        #endif
    }

    /// The transport a row measures.
    enum TransportKind: String {
        case curl = "CurlTransport"
        case urlSession = "URLSessionTransport"
    }

    /// The HTTP versions the server saw, counted.
    final class Versions: Sendable {
        private let counts = Locked<[String: Int]>([:])

        func note(_ version: String?) {
            counts.withLock { $0[version ?? "unknown", default: 0] += 1 }
        }

        var summary: String {
            counts.withLock {
                $0.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
            }
        }
    }
}
