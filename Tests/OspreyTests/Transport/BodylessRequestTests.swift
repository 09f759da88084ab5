import Foundation
import OspreyTesting
import Testing

@testable import Osprey

/// Requests without a body, on the test transport: what RFC 9110 §8.6 asks of their framing.
@Suite("Transport: requests without a body")
struct BodylessRequestTests {
    @Test(
        "POST, PUT and PATCH without parameters send Content-Length: 0 and no Content-Type",
        arguments: ["POST", "PUT", "PATCH"])
    func emptyContent(method: String) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.route(HTTPMethod(method), endpoint: "/items")
        ).value
        #expect(echo.method == method)
        #expect(echo.value(forHeader: "Content-Length") == "0")
        #expect(echo.value(forHeader: "Content-Type") == nil)
        #expect(echo.value(forHeader: "Transfer-Encoding") == nil)
        #expect(echo.body.isEmpty)
    }

    @Test(
        "GET, DELETE and OPTIONS without a body send no Content-Length",
        arguments: ["GET", "DELETE", "OPTIONS"])
    func noContent(method: String) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let api = TestAPI(server)
        let echo: LoopbackServer.Echo = try await api.request(
            route: api.route(HTTPMethod(method), endpoint: "/items")
        ).value
        #expect(echo.method == method)
        // FoundationNetworking sends `Content-Length: 0` with every method but GET and HEAD; the
        // libcurl transport follows RFC 9110 §8.6 (no length where no body is expected).
        let sentByFoundation = TestTransport.isURLSession && method != "GET"
        #expect(echo.value(forHeader: "Content-Length") == (sentByFoundation ? "0" : nil))
        #expect(echo.value(forHeader: "Content-Type") == nil)
    }

    @Test("a body that reaches the curl transport without a Content-Type goes without one")
    func bodyWithoutType() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/items") { request in .echo(of: request) }
        let transport = TestTransport.make() ?? CurlOrSession.make()
        var request = URLRequest(url: server.url("/items"))
        request.httpMethod = "POST"
        request.httpBody = Data("raw".utf8)
        let response = try await transport.send(TransportRequest(urlRequest: request)).value
        let echo = try JSONDecoder().decode(LoopbackServer.Echo.self, from: response.data)
        #expect(echo.body == Data("raw".utf8))
        #expect(echo.value(forHeader: "Content-Length") == "3")
        // libcurl's default would be application/x-www-form-urlencoded, which the curl transport
        // suppresses; URLSession adds it on every platform (Osprey's own requests always give a
        // type: `application/octet-stream` for a body without one).
        let foundationDefault = TestTransport.isURLSession ? "application/x-www-form-urlencoded" : nil
        #expect(echo.value(forHeader: "Content-Type") == foundationDefault)
    }
}
