import Foundation
import Osprey
import OspreyTesting
import Testing

// The snippet of the "Adapters, retries and monitoring" article, against the loopback server.

actor TokenStore {
    private var token = "initial"
    func current() -> String { token }
}

@Suite("Articles: adapters, retries and monitoring")
struct AdaptersArticleTests {
    @Test("the snippet's adapter, policy and monitor work together")
    func snippet() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "GET", "/users/:name/repos", handler: sequence([503, 200], body: #"[{"name": "osprey"}]"#))
        let lines = Locked<[String]>([])

        let tokens = TokenStore()
        let api = RepositoriesAPI(host: server.baseURL.absoluteString)
        api.configuration.adapters = [
            AdaptRequest(async: { request in
                var request = request
                request.setValue("Bearer \(await tokens.current())", forHTTPHeaderField: "Authorization")
                return request
            })
        ]
        api.configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 3, baseDelay: 0.5)
        api.configuration.monitors = [LoggingMonitor { line in lines.withLock { $0.append(line) } }]

        let repositories = try await api.repositoriesOf("username").value
        #expect(repositories == [Repository(name: "osprey")])
        #expect(
            server.requests.map { $0.value(forHeader: "Authorization") } == [
                "Bearer initial", "Bearer initial",
            ])
        let log = lines.withLock { $0 }
        #expect(log.count == 4)
        #expect(log.allSatisfy { !$0.contains("initial") })
        #expect(log.last?.contains("-> 200: succeeded (attempt 2") == true)
    }
}
