import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("HARRecorder: the last exchanges as a HAR archive, bounded and redacted")
struct HARRecorderTests {
    private struct Item: Codable, Sendable, Equatable {
        var name: String
    }

    @Test("successes, failures with a response and retried attempts are kept with their bodies and timings")
    func recordsExchanges() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/items") { request in .json(request.body, status: 201) }
        server.route("GET", "/gone") { _ in .json(#"{"name": "gone"}"#, status: 404) }
        let recorder = HARRecorder()
        let api = TestAPI(server)
        api.configuration.monitors = [recorder]
        let created: Item = try await api.request(
            route: api.post(endpoint: "/items"), parameters: JSONParameters(Item(name: "a"))
        ).value
        #expect(created == Item(name: "a"))
        let gone: Result<Item, any Error> = await api.request(route: api.get(endpoint: "/gone")).result
        #expect(throws: APIError.self) { try gone.get() }
        await api.drainRequestQueue()

        let entries = recorder.archive.log.entries
        #expect(entries.map(\.request.method) == ["POST", "GET"])
        #expect(entries.map(\.response.status) == [201, 404])
        #expect(entries[0].request.postData?.text == #"{"name":"a"}"#)
        #expect(entries[0].request.postData?.mimeType == "application/json")
        #expect(entries[0].response.content.text == #"{"name":"a"}"#)
        #expect(entries[1].response.content.text == #"{"name": "gone"}"#)
        #expect(entries[1].comment?.contains("404") == true)
        #expect(entries.allSatisfy { $0.time >= 0 && $0.startDate != nil })
        #expect(recorder.archive.log.creator == .osprey)
    }

    @Test("only the last exchanges are kept: by count, and by the bytes their bodies hold")
    func bounded() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/n/:n") { request in
            .text(String(repeating: "x", count: 100) + request.pathParameters["n"]!)
        }
        let byCount = HARRecorder(limit: 3)
        let byBytes = HARRecorder(byteLimit: 250)
        let api = TestAPI(server)
        api.configuration.monitors = [byCount, byBytes]
        for index in 0..<6 {
            let _: String = try await api.request(route: api.get(endpoint: "/n/\(index)")).value
        }
        await api.drainRequestQueue()
        #expect(byCount.archive.log.entries.map(\.request.url).map { $0.suffix(1) } == ["3", "4", "5"])
        #expect(byBytes.archive.log.entries.map(\.request.url).map { $0.suffix(1) } == ["4", "5"])
        byCount.removeAll()
        #expect(byCount.archive.log.entries.isEmpty)
    }

    @Test("without bodies, an entry keeps the body's size and type, not its text")
    func withoutBodies() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/item") { _ in .json(#"{"name": "secret-ish"}"#) }
        let recorder = HARRecorder(includesBodies: false)
        let api = TestAPI(server)
        api.configuration.monitors = [recorder]
        let _: Item = try await api.request(route: api.get(endpoint: "/item")).value
        await api.drainRequestQueue()
        let content = try #require(recorder.archive.log.entries.first?.response.content)
        #expect(content.text == nil)
        #expect(content.size == #"{"name": "secret-ish"}"#.utf8.count)
        #expect(content.mimeType == "application/json")
    }

    @Test("a request that got no response is kept with status 0 and the error")
    func transportFailure() async throws {
        let server = try LoopbackServer()
        let api = TestAPI(server)
        server.stop()
        let recorder = HARRecorder()
        api.configuration.monitors = [recorder]
        let result: Result<Item, any Error> = await api.request(route: api.get(endpoint: "/nobody")).result
        #expect(throws: APIError.self) { try result.get() }
        await api.drainRequestQueue()
        let entry = try #require(recorder.archive.log.entries.first)
        #expect(entry.response.status == 0)
        #expect(entry.comment?.isEmpty == false)
    }

    @Test("credentials and the API's declared secret headers are redacted; write refuses a leaked secret")
    func redaction() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/me") { _ in .json(#"{"name": "tok-77aa"}"#) }
        var redaction = HARRedaction()
        redaction.secrets = ["tok-77aa", "key-55bb"]
        let recorder = HARRecorder(redaction: redaction)
        let api = TestAPI(server)
        api.configuration.monitors = [recorder]
        api.configuration.headers["Authorization"] = "Bearer tok-77aa"
        api.configuration.headers["X-Api-Key"] = "key-55bb"
        let _: Item = try await api.request(route: api.get(endpoint: "/me")).value
        await api.drainRequestQueue()
        let headers = try #require(recorder.archive.log.entries.first?.request.headers)
        #expect(headers.first { $0.name == "Authorization" }?.value == "REDACTED")
        #expect(headers.first { $0.name == "X-Api-Key" }?.value == "REDACTED")
        // The token also came back in the body, which no rule names: the archive is refused.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-\(UUID().uuidString).har")
        #expect(throws: HARRedaction.SecretFound.self) { try recorder.write(to: file) }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("each redirect followed is an entry of its own, before the response; a 307 keeps the body")
    func redirects() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/old") { _ in
            LoopbackServer.Response(status: 307, headers: [.init("Location", "/new")])
        }
        server.route("POST", "/new") { _ in
            LoopbackServer.Response(status: 303, headers: [.init("Location", "/items/1")])
        }
        server.route("GET", "/items/1") { _ in .json(#"{"name": "one"}"#) }
        let recorder = HARRecorder()
        let api = TestAPI(server)
        api.configuration.monitors = [recorder]
        let item: Item = try await api.request(
            route: api.post(endpoint: "/old"), parameters: JSONParameters(Item(name: "a"))
        ).value
        #expect(item == Item(name: "one"))
        await api.drainRequestQueue()
        let entries = recorder.archive.log.entries
        #expect(entries.map(\.request.method) == ["POST", "POST", "GET"])
        #expect(entries.map { URL(string: $0.request.url)?.path } == ["/old", "/new", "/items/1"])
        #expect(entries.map(\.response.status) == [307, 303, 200])
        #expect(entries.map(\.response.redirectURL) == ["/new", "/items/1", ""])
        #expect(entries.map { $0.request.postData?.text } == [#"{"name":"a"}"#, #"{"name":"a"}"#, nil])
        #expect(entries[2].response.content.text == #"{"name": "one"}"#)
        #expect(entries.allSatisfy { $0.response.url == nil })
    }
}
