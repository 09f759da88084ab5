// OspreyStreamProbe: a stream read in top-level code, as a new user writes it in `main.swift`.
// OspreyTests (TopLevelLoopTests) runs it and reads the one JSON line it prints.
//
//   OspreyStreamProbe break            leaves a `for try await` loop over events with `break`
//   OspreyStreamProbe cancel-break     calls `cancel()` on the stream, then `break`
//   OspreyStreamProbe sentinel         reads `values(of:endingAt: "[DONE]")` to its end
//   OspreyStreamProbe function         leaves the same loop with `break` inside a function
//
// Each loop is top-level code (inside an `if`, as in a `do {}`), except `function`. The report
// says whether the server saw the client hang up within 5 s of the loop's end, and whether the
// compiler released a top-level loop's iterator at all (the canary): Swift 6.3 does not (its
// AllocBoxToStack pass drops the destroy of a top-level `var` in an async `main`, so a `for`
// loop's iterator lives until the process exits), and a library cannot see a `break` then.
import Foundation
import Osprey
import OspreyTesting

/// What one run saw.
struct Report: Codable {
    var scenario: String
    /// The server saw the connection close within 5 s of the loop's end.
    var hungUp: Bool
    /// Events the server wrote after the loop ended.
    var writtenAfter: Int
    /// A top-level `for` loop's iterator was released when the loop ended.
    var canaryReleased: Bool
}

final class ProbeAPI: AbstractAPI, BaseAPI, @unchecked Sendable {
    let baseURL: String

    init(port: UInt16) {
        baseURL = "http://127.0.0.1:\(port)"
        // The transport the test suite runs on (CI runs it on both).
        let onURLSession = ProcessInfo.processInfo.environment["OSPREY_TEST_TRANSPORT"] == "urlsession"
        super.init(responseParser: JSONParser(), transport: onURLSession ? URLSessionTransport() : nil)
    }
}

/// The server's side: how many events it wrote, and a signal when the client hung up.
final class Feed: Sendable {
    private let written = Locked(0)
    let hungUp = DispatchSemaphore(value: 0)

    func wrote() { written.withLock { $0 += 1 } }
    var count: Int { written.withLock { $0 } }
}

/// Set when the canary's iterator goes.
final class Canary: Sendable {
    static let released = Locked(false)
    deinit { Canary.released.withLock { $0 = true } }
}

/// A sequence whose iterator holds a ``Canary``.
struct CanarySequence: Sequence {
    struct Iterator: IteratorProtocol {
        let canary = Canary()
        var count = 0
        mutating func next() -> Int? {
            count += 1
            return count
        }
    }
    func makeIterator() -> Iterator { Iterator() }
}

struct Token: Decodable, Sendable {
    var n: Int
}

let scenario = CommandLine.arguments.dropFirst().first ?? "break"
let feed = Feed()
let server = try LoopbackServer()
server.route("/feed") { _ in
    .streaming(headers: [.init("Content-Type", "text/event-stream")]) { body in
        var index = 0
        while body.write("data: {\"n\": \(index)}\n\n") {
            feed.wrote()
            index += 1
            if scenario == "sentinel", index == 3 { body.write("data: [DONE]\n\n") }
            guard body.pause(for: 0.01) else { break }
        }
        feed.hungUp.signal()
    }
}
let api = ProbeAPI(port: server.port)

// The canary: the same shape of loop, in the same top-level code.
if scenario != "function" {
    for number in CanarySequence() where number == 3 { break }
}
let canaryReleased = Canary.released.withLock { $0 }

func readInAFunction() async throws {
    var seen = 0
    for try await _ in api.events(route: api.get(endpoint: "/feed")) {
        seen += 1
        if seen == 3 { break }
    }
}

if scenario == "break" {
    var seen = 0
    for try await _ in api.events(route: api.get(endpoint: "/feed")) {
        seen += 1
        if seen == 3 { break }
    }
} else if scenario == "cancel-break" {
    let events = api.events(route: api.get(endpoint: "/feed"))
    var seen = 0
    for try await _ in events {
        seen += 1
        if seen == 3 {
            events.cancel()
            break
        }
    }
} else if scenario == "sentinel" {
    for try await _ in api.events(route: api.get(endpoint: "/feed")).values(
        of: Token.self, endingAt: "[DONE]")
    {}
} else {
    try await readInAFunction()
}
let writtenAtEnd = feed.count
let hungUp = feed.hungUp.wait(timeout: .now() + 5) == .success
let report = Report(
    scenario: scenario, hungUp: hungUp, writtenAfter: feed.count - writtenAtEnd,
    canaryReleased: scenario == "function" ? true : canaryReleased)
print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
server.stop()
