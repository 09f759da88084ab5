import Foundation
import Osprey
import OspreyTesting
import Promises
import Testing

@Suite("Cassette: real traffic recorded to HAR once, replayed offline")
struct CassetteTests {
    @Test("recorded once, then replayed with the server gone: status, headers and bodies as they came")
    func recordThenReplay() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        server.route("GET", "/items/:name") { request in
            var response = LoopbackServer.Response.json(
                #"{"name": "\#(request.pathParameters["name"]!)", "count": 3}"#)
            response.headers.append(.init("X-Served", "yes"))
            return response
        }
        server.route("POST", "/items") { request in .json(request.body, status: 201) }
        server.route("GET", "/missing") { _ in LoopbackServer.Response(status: 404) }
        let baseURL = server.url("").absoluteString

        let recorder = try Cassette(file: folder.file(), transport: liveTransport())
        let live = RecordedAPI(baseURL: baseURL, transport: recorder)
        let fetched: RecordedAPI.Item = try await live.request(route: live.get(endpoint: "/items/a")).value
        let created: RecordedAPI.Item = try await live.request(
            route: live.post(endpoint: "/items"),
            parameters: JSONParameters(RecordedAPI.Item(name: "b", count: 1))
        ).value
        let missing: Result<RecordedAPI.Item, any Error> = await live.request(
            route: live.get(endpoint: "/missing")
        ).result
        server.stop()
        #expect(server.requests.count == 3)
        #expect(FileManager.default.fileExists(atPath: folder.file().path))

        let player = try Cassette(file: folder.file(), transport: liveTransport())
        let offline = RecordedAPI(baseURL: baseURL, transport: player)
        let response: APIResponse<RecordedAPI.Item> = try await offline.request(
            route: offline.get(endpoint: "/items/a")
        ).value
        #expect(response.value == fetched)
        #expect(response.headers["X-Served"] == "yes")
        #expect(response.statusCode == 200)
        let replayedCreation: RecordedAPI.Item = try await offline.request(
            route: offline.post(endpoint: "/items"),
            parameters: JSONParameters(RecordedAPI.Item(name: "b", count: 1))
        ).value
        #expect(replayedCreation == created)
        let replayedMissing: Result<RecordedAPI.Item, any Error> = await offline.request(
            route: offline.get(endpoint: "/missing")
        ).result
        #expect("\(replayedMissing)" == "\(missing)")
        #expect(server.requests.count == 3)
    }

    @Test("replay only: a request nobody recorded fails, showing it and the nearest recorded one")
    func unmatched() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/users") { _ in .json("[]") }
        let baseURL = server.url("").absoluteString
        let recorder = try Cassette(file: folder.file(), transport: liveTransport())
        let live = RecordedAPI(baseURL: baseURL, transport: recorder)
        _ =
            try await live.request(
                route: live.get(endpoint: "/users"), parameters: URLParameters(["page": "1"])
            )
            .value as [RecordedAPI.Item]

        let player = try Cassette(file: folder.file(), mode: .none, transport: liveTransport())
        let offline = RecordedAPI(baseURL: baseURL, transport: player)
        let result: Result<[RecordedAPI.Item], any Error> = await offline.request(
            route: offline.get(endpoint: "/users"), parameters: URLParameters(["page": "2"])
        ).result
        guard case .failure(APIError.transport(let underlying as Cassette.Unmatched, _)) = result else {
            Issue.record("expected Cassette.Unmatched, got \(result)")
            return
        }
        #expect(underlying.request == "GET \(server.url("/users"))?page=2")
        #expect(underlying.nearest == "GET \(server.url("/users"))?page=1")
        #expect("\(underlying)".contains("has no recorded answer for GET"))
        #expect(server.requests.count == 1)
    }

    @Test("the query's order is ignored; repeated requests get their answers in recorded order, each once")
    func orderAndRepeats() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let counter = Counter()
        server.route("GET", "/next") { _ in .json(#"{"name": "n", "count": \#(counter.next())}"#) }
        let baseURL = server.url("").absoluteString
        let live = RecordedAPI(
            baseURL: baseURL, transport: try Cassette(file: folder.file(), transport: liveTransport()))
        for _ in 0..<2 {
            _ =
                try await live.request(route: .get("\(server.url("/next"))?a=1&b=2")).value
                as RecordedAPI.Item
        }

        let offline = RecordedAPI(
            baseURL: baseURL, transport: try Cassette(file: folder.file(), transport: liveTransport()))
        var counts: [Int] = []
        for _ in 0..<2 {
            let item: RecordedAPI.Item = try await offline.request(
                route: .get("\(server.url("/next"))?b=2&a=1")
            )
            .value
            counts.append(item.count)
        }
        #expect(counts == [1, 2])
        let third: Result<RecordedAPI.Item, any Error> = await offline.request(
            route: .get("\(server.url("/next"))?a=1&b=2")
        )
        .result
        #expect(throws: APIError.self) { try third.get() }
        #expect(server.requests.count == 2)
    }

    @Test("newEpisodes replays what matches and records the rest; all records everything again")
    func modes() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/:name") { request in
            .json(#"{"name": "\#(request.pathParameters["name"]!)", "count": 0}"#)
        }
        let baseURL = server.url("").absoluteString
        func fetch(_ name: String, _ cassette: Cassette) async throws -> String {
            let api = RecordedAPI(baseURL: baseURL, transport: cassette)
            let item: RecordedAPI.Item = try await api.request(route: api.get(endpoint: "/\(name)")).value
            return item.name
        }
        _ = try await fetch("a", try Cassette(file: folder.file(), transport: liveTransport()))
        #expect(server.requests.count == 1)

        let episodes = try Cassette(file: folder.file(), mode: .newEpisodes, transport: liveTransport())
        #expect(try await fetch("a", episodes) == "a")
        #expect(try await fetch("b", episodes) == "b")
        #expect(server.requests.count == 2)
        #expect(
            try Cassette(file: folder.file(), transport: liveTransport()).entries.map(\.request.url) == [
                server.url("/a").absoluteString, server.url("/b").absoluteString,
            ])

        let everything = try Cassette(file: folder.file(), mode: .all, transport: liveTransport())
        #expect(try await fetch("c", everything) == "c")
        #expect(server.requests.count == 3)
        #expect(
            try Cassette(file: folder.file(), transport: liveTransport()).entries.map(\.request.url) == [
                server.url("/c").absoluteString
            ])
    }

    @Test("with body matching, JSON bodies match as JSON whatever their key order, and differ by value")
    func bodyMatching() async throws {
        let folder = try CassetteFolder()
        defer { folder.cleanUp() }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/echo") { request in .json(request.body) }
        let baseURL = server.url("").absoluteString
        let recorder = try Cassette(
            file: folder.file(), transport: liveTransport(), matching: .methodAndURL.body)
        let live = RecordedAPI(baseURL: baseURL, transport: recorder)
        for count in [1, 2] {
            _ =
                try await live.request(
                    route: live.post(endpoint: "/echo"),
                    parameters: JSONParameters(["name": "x", "count": count])
                ).value as RecordedAPI.Item
        }

        let player = try Cassette(
            file: folder.file(), mode: .none, transport: liveTransport(), matching: .methodAndURL.body)
        let offline = RecordedAPI(baseURL: baseURL, transport: player)
        // The second one first: matched by its body, not by its place.
        let second: RecordedAPI.Item = try await offline.request(
            route: offline.post(endpoint: "/echo"), parameters: JSONParameters(["name": "x", "count": 2])
        ).value
        #expect(second == RecordedAPI.Item(name: "x", count: 2))
        let unknown: Result<RecordedAPI.Item, any Error> = await offline.request(
            route: offline.post(endpoint: "/echo"), parameters: JSONParameters(["name": "x", "count": 3])
        ).result
        #expect(throws: APIError.self) { try unknown.get() }
    }

    @Test(
        "body matching: JSON key order and spacing are ignored, values are not; forms compare field by field")
    func bodyKeys() {
        func request(_ text: String, _ type: String) -> HAR.Request {
            HAR.Request(
                method: "POST", url: "http://127.0.0.1/x", postData: HAR.PostData(mimeType: type, text: text))
        }
        let matching = Cassette.Matching.methodAndURL.body
        let json = "application/json"
        #expect(
            matching.matches(
                request(#"{"a": 1, "b": [true, null]}"#, json), request(#"{"b":[true,null],"a":1}"#, json)))
        #expect(!matching.matches(request(#"{"a": 1}"#, json), request(#"{"a": 2}"#, json)))
        #expect(!matching.matches(request(#"{"a": "1"}"#, json), request(#"{"a": 1}"#, json)))
        let form = "application/x-www-form-urlencoded"
        #expect(matching.matches(request("a=1&b=2", form), request("b=2&a=1", form)))
        #expect(!matching.matches(request("a=1&b=2", form), request("a=1&b=3", form)))
        #expect(!matching.matches(request("abc", "text/plain"), request("abd", "text/plain")))
        #expect(
            Cassette.Matching.methodAndURL.matches(request("abc", "text/plain"), request("abd", "text/plain"))
        )
    }

    @Test("HAR's creator is Osprey at the CHANGELOG's latest release")
    func creatorVersion() throws {
        let changelog = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../../CHANGELOG.md"), encoding: .utf8)
        let release = changelog.split(separator: "\n").first {
            $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]")
        }
        let version = release.flatMap {
            $0.split(separator: "[").dropFirst().first?.split(separator: "]").first
        }
        #expect(version.map(String.init) == HAR.Creator.osprey.version)
    }
}

/// Counts from 1, for a route that answers differently each time.
final class Counter: Sendable {
    private let count = Locked(0)

    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
