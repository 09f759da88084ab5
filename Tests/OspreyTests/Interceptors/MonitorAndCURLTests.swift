import Foundation
import Osprey
import OspreyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Event monitors and cURL rendering: every outcome, never a credential")
struct MonitorAndCURLTests {
    @Test("LoggingMonitor logs start and outcome, with cURL, and no secret reaches the log")
    func loggingRedacts() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/secret") { _ in .json(#"{"code": 1, "message": "no"}"#, status: 500) }
        let lines = Locked<[String]>([])
        let api = TestAPI(server)
        api.configuration.monitors = [
            LoggingMonitor(includesCURL: true) { line in lines.withLock { $0.append(line) } }
        ]
        api.configuration.headers = [
            "Authorization": "Bearer s3cr3t-token", "X-Api-Key": "s3cr3t-key", "X-Session": "s3cr3t-session",
        ]
        // Declared secret in another case than sent: still redacted.
        api.configuration.sensitiveHeaders = ["x-SESSION"]
        api.configuration.adapters = [
            AdaptRequest { $0.setValue("session=s3cr3t-cookie", forHTTPHeaderField: "Cookie") }
        ]
        let promise: Promise<Identified> = api.request(
            route: api.get(endpoint: "/secret?access_token=s3cr3t-query&page=2"))
        #expect(await promise.apiError?.statusCode == 500)
        let log = lines.withLock { $0 }.joined(separator: "\n")
        #expect(!log.contains("s3cr3t"), "\(log)")
        #expect(log.contains("GET http://127.0.0.1:\(server.port)/secret"))
        #expect(log.contains(": started (attempt 1"))
        #expect(log.contains("-> 500: failed: Unacceptable status"))
        #expect(log.contains("curl -H 'Accept: application/json'"))
        #expect(log.contains("'Authorization: <redacted>'"))
        #expect(log.contains("'X-Session: <redacted>'"))
    }

    @Test("a cancelled request reports cancelled")
    func cancelledEvent() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/slow") { _ in LoopbackServer.Response.json("{}").delayingHead(by: 3600) }
        let recorder = EventRecorder()
        let api = TestAPI(server)
        api.configuration.monitors = [recorder]
        let promise: Promise<Identified> = api.request(route: api.get(endpoint: "/slow"))
        #expect(await server.waitForRequests(count: 1, timeout: 30))
        promise.cancel()
        let cancelled = try await recorder.firstEvent { $0.kind.name == "cancelled" }.value
        #expect(cancelled.attempt == 1)
        #expect(recorder.kinds == ["started", "cancelled"])
    }

    @Test("cURL: method, sorted headers, shell quoting, redacted credentials and body")
    func curlRedacted() throws {
        var request = URLRequest(
            url: try #require(URL(string: "https://u:p@api.example.com/v1/it's?token=abc&page=2")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        request.setValue("it's", forHTTPHeaderField: "X-Note")
        request.httpBody = Data(#"{"password":"hunter2"}"#.utf8)
        #expect(
            request.cURLDescription()
                == #"curl -X 'POST' -H 'Authorization: <redacted>' -H 'Content-Type: application/json' "#
                + #"-H 'X-Note: it'\''s' --data-binary '<22 bytes>' "#
                + #"'https://%3Credacted%3E@api.example.com/v1/it'\''s?token=redacted&page=2'"#
        )
        let revealed = request.cURLDescription(revealingCredentials: true)
        #expect(revealed.contains("'Authorization: Bearer abc'"))
        #expect(revealed.contains(#"--data-binary '{"password":"hunter2"}'"#))
        #expect(revealed.hasSuffix(#"'https://u:p@api.example.com/v1/it'\''s?token=abc&page=2'"#))
    }

    @Test("cURL: $, backticks, backslashes and newlines stay literal inside single quotes")
    func curlShellSafe() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/run")))
        request.httpMethod = "POST"
        request.setValue("$(id) `id` \\n", forHTTPHeaderField: "X-Note")
        request.httpBody = Data("a$HOME`id`\nb'c".utf8)
        let revealed = request.cURLDescription(revealingCredentials: true)
        #expect(revealed.contains(#"-H 'X-Note: $(id) `id` \n'"#))
        #expect(revealed.contains("--data-binary 'a$HOME`id`\nb'\\''c'"))
    }
}
