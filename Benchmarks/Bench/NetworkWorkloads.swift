import Dispatch
import Foundation
import Osprey
import OspreyTesting

/// The framework's overhead on real requests: the same loopback endpoints fetched through raw
/// URLSession (`dataTask` with a completion handler) and through an `AbstractAPI`, sequentially
/// and 16 at a time, for a small JSON body and a 1 MiB body. Both use an ephemeral session of
/// their own with the same configuration.
struct NetworkWorkloads {
    let scale: Int
    let measurement: Measurement

    struct Item: Decodable, Sendable {
        var id: Int
        var name: String
        var tags: [String]
    }

    final class BenchAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
        let baseURL: String

        init(baseURL: String) {
            self.baseURL = baseURL
            super.init(responseParser: JSONParser())
            responseQueue = DispatchQueue(label: "bench.api.response")
        }
    }

    func run() throws -> [Comparison] {
        let server = try LoopbackServer()
        defer { server.stop() }
        let small = Data(#"{"id": 1, "name": "osprey", "tags": ["a", "b", "c"]}"#.utf8)
        let large = Data(repeating: 0x61, count: 1024 * 1024)
        server.route("GET", "/small") { _ in .json(small) }
        server.route("GET", "/large") { _ in LoopbackServer.Response(body: large) }
        let api = BenchAPI(baseURL: server.baseURL.absoluteString)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        let smallURL = server.url("/small")
        let largeURL = server.url("/large")
        // One handler each, where the raw version runs its completion handler.
        let framework: [String: @Sendable (@escaping @Sendable () -> Void) -> Void] = [
            "small": { done in
                let item: Promise<Item> = api.request(route: api.get(endpoint: "/small"))
                item.finally(in: .global(), done)
            },
            "large": { done in
                let body: Promise<Data> = api.request(route: api.get(endpoint: "/large"))
                body.finally(in: .global(), done)
            },
        ]
        var comparisons: [Comparison] = []
        for (name, url, count) in [("small", smallURL, 600 / scale), ("large", largeURL, 120 / scale)] {
            for inFlight in [1, 16] {
                let raw: () -> Void = {
                    Self.drive(count: count, inFlight: inFlight) { done in
                        session.dataTask(with: url) { data, _, _ in
                            if name == "small", let data {
                                _ = try? JSONDecoder().decode(Item.self, from: data)
                            }
                            done()
                        }.resume()
                    }
                }
                let measured: () -> Void = {
                    Self.drive(count: count, inFlight: inFlight) { done in framework[name]!(done) }
                }
                comparisons.append(
                    Comparison(
                        workload: "GET \(name) x\(count), \(inFlight) in flight",
                        operations: count,
                        baselineName: "raw URLSession",
                        timings: measurement.interleaved(baseline: raw, measured: measured),
                        target: 1 / 0.95
                    )
                )
            }
        }
        return comparisons
    }

    /// Runs `count` operations with at most `inFlight` at a time and waits for all of them.
    private static func drive(count: Int, inFlight: Int, _ start: (@escaping @Sendable () -> Void) -> Void) {
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
