import Foundation
import Osprey
import OspreyTesting
import Testing

enum Intercepted {
    @API
    protocol Items {
        @GET("/items")
        func items() async throws -> [String]

        #if os(Linux) || os(macOS)
            @GET("/platform")
            func platform() async throws -> String
        #else
            @GET("/elsewhere")
            func elsewhere() async throws -> String
        #endif
    }
}

@Suite("Declarative APIs: modifiers and interceptors")
struct InterceptorTests {
    @Test("interceptors compose in order, around the transport: the first added is the outermost")
    func order() async throws {
        let server = try makeServer(answering: #"["a"]"#)
        defer { server.stop() }
        let log = Locked<[String]>([])
        let provider = server.provider
            .intercept { req, next in
                log.withLock { $0.append("outer in") }
                let res = try await next(req)
                log.withLock { $0.append("outer out \(res.headers["X-Inner"] ?? "-")") }
                return res
            }
            .intercept { req, next in
                log.withLock { $0.append("inner in") }
                var res = try await next(req)
                res.headers["X-Inner"] = "seen"
                log.withLock { $0.append("inner out") }
                return res
            }
        #expect(try await Intercepted.ItemsAPI(provider: provider).items() == ["a"])
        #expect(log.withLock { $0 } == ["outer in", "inner in", "inner out", "outer out seen"])
    }

    @Test("an interceptor can change the request and replace the response without sending anything")
    func replace() async throws {
        let server = try makeServer(answering: #"["from the server"]"#)
        defer { server.stop() }
        let provider = server.provider
            .intercept { req, next in
                var req = req
                req.headers["X-Signed"] = "yes"
                return try await next(req)
            }
        _ = try await Intercepted.ItemsAPI(provider: provider).items()
        #expect(server.onlyRequest?.value(forHeader: "X-Signed") == "yes")

        let cached = server.provider.intercept { req, _ in
            Response(
                request: req.urlRequest, statusCode: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"["cached"]"#.utf8))
        }
        #expect(try await Intercepted.ItemsAPI(provider: cached).items() == ["cached"])
        #expect(server.requests.count == 1)
    }

    @Test("an interceptor's error fails the request as a transport error; a modifier's as preprocessing")
    func failures() async throws {
        struct Refused: Error {}
        let server = try makeServer()
        defer { server.stop() }
        let intercepting = server.provider.intercept { _, _ in throw Refused() }
        let first = await #expect(throws: APIError.self) {
            try await Intercepted.ItemsAPI(provider: intercepting).items()
        }
        guard case .transport(let underlying, _) = first else {
            Issue.record("expected a transport error, got \(String(describing: first))")
            return
        }
        #expect(underlying is Refused)

        let modifying = server.provider.modifyRequests { _ in throw Refused() }
        let second = await #expect(throws: APIError.self) {
            try await Intercepted.ItemsAPI(provider: modifying).items()
        }
        guard case .preprocessingFailed(let cause) = second else {
            Issue.record("expected preprocessingFailed, got \(String(describing: second))")
            return
        }
        #expect(cause is Refused)
        #expect(server.requests.isEmpty)
    }

    @Test("members inside #if blocks are generated in the same clauses")
    func conditionalMembers() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/platform") { _ in .text("here") }
        #if os(Linux) || os(macOS)
            #expect(try await Intercepted.ItemsAPI(provider: server.provider).platform() == "here")
        #endif
    }
}
