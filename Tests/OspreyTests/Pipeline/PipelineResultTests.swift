import Foundation
import Osprey
import OspreyTesting
import Testing

@Suite("Pipeline: result types, status validation, errors")
struct PipelineResultTests {
    struct Item: Decodable, Sendable, Equatable {
        var id: Int
    }

    @Test("Void, Data, String and APIResponse results")
    func resultTypes() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("DELETE", "/items/1") { _ in LoopbackServer.Response(status: 204) }
        server.route("GET", "/raw") { _ in LoopbackServer.Response(body: Data([0, 1, 2, 255])) }
        server.route("GET", "/latin1") { _ in
            LoopbackServer.Response(
                headers: [.init("Content-Type", "text/plain; charset=iso-8859-1")],
                body: Data([0x63, 0x61, 0x66, 0xE9]))
        }
        server.route("GET", "/items/1") { _ in .json(#"{"id": 1}"#).adding(header: "ETag", "\"v1\"") }
        let api = TestAPI(server)

        let deleted: Promise<Void> = api.request(route: api.delete(endpoint: "/items/1"))
        _ = try await deleted.value
        let raw: Data = try await api.request(route: api.get(endpoint: "/raw")).value
        #expect(raw == Data([0, 1, 2, 255]))
        let text: String = try await api.request(route: api.get(endpoint: "/latin1")).value
        #expect(text == "café")
        let textResponse: APIResponse<String> = try await api.request(route: api.get(endpoint: "/latin1"))
            .value
        #expect(textResponse.value == "café")  // text, as for Promise<String>; not JSON
        #expect(textResponse.headers["Content-Type"] == "text/plain; charset=iso-8859-1")
        let response: APIResponse<Item> = try await api.request(route: api.get(endpoint: "/items/1")).value
        #expect(response.value == Item(id: 1))
        #expect(response.statusCode == 200)
        #expect(response.headers["etag"] == "\"v1\"")
    }

    @Test("an optional result is nil for 204, 205 and empty bodies, and decodes a body otherwise")
    func optionalResults() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/none") { _ in LoopbackServer.Response(status: 204) }
        server.route("GET", "/reset") { _ in LoopbackServer.Response(status: 205) }
        server.route("GET", "/empty") { _ in LoopbackServer.Response(status: 200) }
        server.route("GET", "/null") { _ in .json("null") }
        server.route("GET", "/item") { _ in .json(#"{"id": 3}"#) }
        server.route("GET", "/broken") { _ in .json(#"{"id": "#) }
        let api = TestAPI(server)
        for path in ["/none", "/reset", "/empty", "/null"] {
            let value: Item? = try await api.request(route: api.get(endpoint: path)).value
            #expect(value == nil, "\(path)")
        }
        let item: Item? = try await api.request(route: api.get(endpoint: "/item")).value
        #expect(item == Item(id: 3))
        // Typed requests too.
        #expect(try await api.request(Request<Item?>.get("none")).value == nil)
        #expect(try await api.request(Request<Item?>.get("item")).value == Item(id: 3))
        let broken: Promise<Item?> = api.request(route: api.get(endpoint: "/broken"))
        guard case .parsingFailed = try #require(await broken.apiError) else {
            Issue.record("expected parsingFailed")
            return
        }
        // A non-optional result still needs a body.
        let required: Promise<Item> = api.request(route: api.get(endpoint: "/empty"))
        guard case .parsingFailed = try #require(await required.apiError) else {
            Issue.record("expected parsingFailed for an empty body")
            return
        }
    }

    @Test("large bodies arrive byte for byte, several at once: chunks are delivered in order")
    func largeBodies() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        var generator = SystemRandomNumberGenerator()
        let bodies = (0..<4).map { index in
            let words = (0..<((3 + index) * 1024 * 1024 / 8)).map { _ in generator.next() }
            return words.withUnsafeBytes { Data($0) } + Data([UInt8(index)])
        }
        server.route("GET", "/blob/:index") { request in
            LoopbackServer.Response(body: bodies[Int(request.pathParameters["index"]!)!])
        }
        let api = TestAPI(server)
        let received = try await Promise.all(
            (0..<4).map { index -> Promise<Data> in api.request(route: api.get(endpoint: "/blob/\(index)")) }
        ).value
        #expect(received == bodies)
    }

    @Test("an unacceptable status carries the status, the body and the parser's typed error")
    func unacceptableStatus() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/missing") { _ in .json(#"{"code": 42, "message": "no such item"}"#, status: 404) }
        let api = TestAPI(server, parser: MessageParser())
        let promise: Promise<Item> = api.request(route: api.get(endpoint: "/missing"))
        let error = try #require(await promise.apiError)
        guard case .unacceptableStatus(_, let serverError) = error else {
            Issue.record("expected unacceptableStatus, got \(error)")
            return
        }
        #expect(error.statusCode == 404)
        #expect(error.data == Data(#"{"code": 42, "message": "no such item"}"#.utf8))
        #expect(serverError as? ServerMessage == ServerMessage(code: 42, message: "no such item"))
        #expect(error.request?.url?.path == "/missing")
    }

    @Test(
        "statuses outside the acceptable set fail; the set is configurable",
        arguments: [201, 299, 304, 400, 500])
    func statuses(status: Int) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/s") { _ in LoopbackServer.Response(status: status) }
        let api = TestAPI(server)
        let result: Result<Void, any Error> = await api.request(route: api.get(endpoint: "/s")).result
        let succeeded = (try? result.get()) != nil
        #expect(succeeded == (200..<300).contains(status))
        api.configuration.acceptableStatusCodes = [status]
        let accepted: Result<Void, any Error> = await api.request(route: api.get(endpoint: "/s")).result
        let acceptedNow = (try? accepted.get()) != nil
        #expect(acceptedNow)
    }

    @Test("a body that does not decode fails with parsingFailed and keeps the status")
    func parsingFailed() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/html") { _ in .text("<html>not json</html>") }
        let api = TestAPI(server)
        let promise: Promise<Item> = api.request(route: api.get(endpoint: "/html"))
        let error = try #require(await promise.apiError)
        guard case .parsingFailed = error else {
            Issue.record("expected parsingFailed, got \(error)")
            return
        }
        #expect(error.statusCode == 200)
    }

    @Test(
        "invalid input fails the promise, never the process",
        arguments: [
            Route.get("not a url"), .method("BAD METHOD", "http://127.0.0.1:1/x"), .get("ftp://127.0.0.1/x"),
        ])
    func invalidInput(route: Route) async throws {
        let api = TestAPI(try LoopbackServer())
        let promise: Promise<Void> = api.request(route: route)
        guard case .invalidRequest = try #require(await promise.apiError) else {
            Issue.record("expected invalidRequest")
            return
        }
    }

    @Test("a throwing preprocess() fails the request before anything is sent")
    func preprocessThrows() async throws {
        struct NoToken: Error {}
        final class FailingParameters: JSONParameters, @unchecked Sendable {
            override func preprocess() throws { throw NoToken() }
        }
        let server = try LoopbackServer()
        defer { server.stop() }
        let api = TestAPI(server)
        let promise: Promise<Void> = api.request(
            route: api.post(endpoint: "/x"), parameters: FailingParameters(["a": 1]))
        guard case .preprocessingFailed(let underlying) = try #require(await promise.apiError) else {
            Issue.record("expected preprocessingFailed")
            return
        }
        #expect(underlying is NoToken)
        #expect(server.acceptedConnectionCount == 0)
    }

    @Test("error descriptions never contain credentials")
    func redaction() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/private") { _ in .text("denied", status: 403) }
        let api = TestAPI(server)
        let parameters = URLParameters(
            ["token": "query-secret"],
            headers: ["Authorization": "Bearer header-secret", "Cookie": "session=cookie-secret"]
        )
        let promise: Promise<Void> = api.request(route: api.get(endpoint: "/private"), parameters: parameters)
        let error = try #require(await promise.apiError)
        #expect(error.statusCode == 403)
        for text in ["\(error)", error.localizedDescription, String(describing: error.context)] {
            #expect(!text.contains("secret"), "\(text)")
        }
    }

    @Test("typed Request values are sent relative to the API's base URL")
    func typedRequests() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/login") { request in
            request.bodyText == #"{"password":"pw","username":"ada"}"#
                ? .json(#"{"token": "t"}"#) : .text("", status: 400)
        }
        let api = TestAPI(server)
        let session = try await api.request(.login(Credentials(username: "ada", password: "pw"))).value
        #expect(session.token == "t")
    }

    @Test("a typed Request<String> is the body as text, as request(route:) gives it, not JSON")
    func typedText() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/motd") { _ in .text("plain words, not JSON") }
        let api = TestAPI(server)
        let typed: String = try await api.request(Request<String>.get("motd")).value
        let routed: String = try await api.request(route: api.get(endpoint: "/motd")).value
        #expect(typed == "plain words, not JSON")
        #expect(typed == routed)
    }

    @Test("releasing the API does not cancel its requests")
    func apiReleased() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/slow") { _ in .json(#"{"id": 5}"#).delayingHead(by: 0.2) }
        var api: TestAPI? = TestAPI(server)
        weak let weakAPI = api
        let promise: Promise<Item> = api!.request(route: api!.get(endpoint: "/slow"))
        api = nil
        // The request in flight (its answer is 0.2 s away) keeps the API alive.
        #expect(weakAPI != nil)
        #expect(try await promise.value == Item(id: 5))
    }
}
