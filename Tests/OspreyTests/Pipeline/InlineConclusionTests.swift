import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// Small responses are finished where the transport completed them; large ones, and everything
/// after a slow parse, on the request queue.
@Suite("Pipeline: where responses are parsed")
struct InlineConclusionTests {
    /// Records, for each body it decodes, whether it ran on the API's request queue.
    final class WhereParser: JSONParser, @unchecked Sendable {
        // @unchecked: `places` is locked; the rest is immutable.
        static let requestQueueKey = DispatchSpecificKey<Bool>()
        let places = Locked<[Bool]>([])
        let delay: TimeInterval

        init(delay: TimeInterval = 0) {
            self.delay = delay
            super.init(decoder: JSONDecoder())
        }

        override func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T {
            places.withLock { $0.append(DispatchQueue.getSpecific(key: Self.requestQueueKey) == true) }
            // Simulated slow work (a parser that takes this long), not a wait for a result.
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            return try super.getInstance(from: data, response: response)
        }
    }

    private func makeAPI(_ server: LoopbackServer, parser: WhereParser) -> TestAPI {
        let api = TestAPI(server, parser: parser)
        api.requestQueueForTesting.setSpecific(key: WhereParser.requestQueueKey, value: true)
        return api
    }

    /// A small body, answered after a moment: a response the transport completes before the
    /// pipeline has attached to its promise (a fast server, a busy machine) is finished on the
    /// request queue, where the pipeline already is, and these tests look at the other case.
    private static func smallAnswer(_ json: String) -> LoopbackServer.Response {
        .json(json).delayingHead(by: 0.2)
    }

    private func fetch(_ api: TestAPI, _ path: String) async throws -> [Int] {
        try await api.request(route: api.get(endpoint: path)).value
    }

    @Test("a small body is parsed where the transport completed it, a large one on the request queue")
    func smallInlineLargeHops() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/small") { _ in Self.smallAnswer("[1, 2, 3]") }
        let large = "[" + Array(repeating: "1", count: 40_000).joined(separator: ",") + "]"
        server.route("/large") { _ in .json(large) }
        let parser = WhereParser()
        let api = makeAPI(server, parser: parser)
        #expect(try await fetch(api, "/small") == [1, 2, 3])
        #expect(try await fetch(api, "/large").count == 40_000)
        #expect(parser.places.withLock { $0 } == [false, true])
    }

    @Test(
        "with event monitors the parser runs on the request queue; a failure found inline still reaches the retry policy"
    )
    func monitorsAndFailuresHop() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/small") { _ in .json("[1]") }
        server.route("/missing") { _ in .json(#"{"code": 404, "message": "no"}"#, status: 404) }
        let parser = WhereParser()
        let monitored = makeAPI(server, parser: parser)
        monitored.configuration.monitors = [ClosureMonitor { _ in }]
        #expect(try await fetch(monitored, "/small") == [1])
        #expect(parser.places.withLock { $0 } == [true])

        // A failure found inline goes on to the request queue, where the retry policy runs.
        let retried = Locked(0)
        let api = makeAPI(server, parser: WhereParser())
        api.configuration.retryPolicy = CountingPolicy(count: retried)
        let missing: Promise<[Int]> = api.request(route: api.get(endpoint: "/missing"))
        let failure = await missing.apiError
        #expect(failure?.statusCode == 404)
        #expect(retried.withLock { $0 } == 1)
    }

    @Test("after a slow parse, the API's next responses are parsed on the request queue")
    func slowParserMovesOff() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/small") { _ in Self.smallAnswer("[1]") }
        // Slower than InlineConclusion.slowWork.
        let parser = WhereParser(delay: 0.005)
        let api = makeAPI(server, parser: parser)
        for _ in 0..<3 {
            #expect(try await fetch(api, "/small") == [1])
        }
        #expect(parser.places.withLock { $0 } == [false, true, true])
    }

    @Test(
        "the budget: quick work keeps inline; slow work sends the next responses to the request queue, then tries again"
    )
    func budget() {
        let budget = InlineConclusion()
        #expect(budget.allowsInlineWork())
        budget.record(nanoseconds: InlineConclusion.slowWork)  // not slower than the limit
        #expect(budget.allowsInlineWork())
        budget.record(nanoseconds: InlineConclusion.slowWork + 1)
        let allowed = (0..<InlineConclusion.coolingOff).filter { _ in budget.allowsInlineWork() }
        #expect(allowed.isEmpty)
        #expect(budget.allowsInlineWork())
    }
}

/// Counts the policy's calls; never retries.
private struct CountingPolicy: RetryPolicy {
    let count: Locked<Int>

    func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval? {
        count.withLock { $0 += 1 }
        return nil
    }
}
