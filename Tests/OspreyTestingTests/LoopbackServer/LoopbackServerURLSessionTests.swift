import Foundation
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Loopback server: through URLSession")
struct LoopbackServerURLSessionTests {
    @Test("URLSession gets routed responses and reuses the kept-alive connection")
    func keepAlive() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/items/:id") { .json(#"{"id":"\#($0.pathParameters["id"]!)"}"#) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }

        let (first, response) = try await session.fetch(URLRequest(url: server.url("/items/1")))
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(first == Data(#"{"id":"1"}"#.utf8))
        for id in 2...5 {
            let (data, _) = try await session.fetch(URLRequest(url: server.url("/items/\(id)")))
            #expect(data == Data(#"{"id":"\#(id)"}"#.utf8))
        }
        #expect(server.requests.count == 5)
        // Five requests one after another share connections. (Not necessarily one: under
        // ThreadSanitizer on a loaded machine FoundationNetworking once opened a second
        // connection for the second request; a server that closed after every answer would show
        // five.)
        #expect(Set(server.requests.map(\.connectionID)).count < 5)
    }

    @Test("URLSession reads chunked responses and its request body arrives intact")
    func chunkedAndBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/echo") { .echo(of: $0).chunked(chunkSize: 7) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }

        var request = URLRequest(url: server.url("/echo?x=1"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let payload = Data((0..<100_000).map { UInt8($0 % 251) })
        request.httpBody = payload
        let (data, _) = try await session.fetch(request)
        let echo = try JSONDecoder().decode(LoopbackServer.Echo.self, from: data)
        #expect(echo.method == "POST")
        #expect(echo.target == "/echo?x=1")
        #expect(echo.body == payload)
        #expect(server.requests.first?.body == payload)
    }

    @Test("URLSession sees a truncated body as an error, never as success")
    func truncatedBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/short") { _ in
            .text(String(repeating: "x", count: 100)).closingConnection(afterBodyBytes: 50)
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        await #expect(throws: (any Error).self) {
            try await session.fetch(URLRequest(url: server.url("/short")))
        }
    }
}
