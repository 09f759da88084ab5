import Foundation
import Osprey
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("StandardRetryPolicy: what is retried, and after how long")
struct StandardRetryPolicyTests {
    private let get = URLRequest(url: URL(string: "http://example.com/items")!)

    private func status(_ code: Int, headers: [String: String] = [:]) -> APIError {
        let response = HTTPURLResponse(
            url: URL(string: "http://example.com/items")!, statusCode: code, httpVersion: "HTTP/1.1",
            headerFields: headers)
        return .unacceptableStatus(context: .init(request: get, response: response), serverError: nil)
    }

    private func policy(random: Double, attempts: Int = 10) -> StandardRetryPolicy {
        var policy = StandardRetryPolicy(maximumAttempts: attempts, baseDelay: 0.5, maximumDelay: 4)
        policy.random = { random }
        return policy
    }

    @Test("backoff doubles from the base delay, is capped, and jitter scales it down to zero")
    func backoffBounds() {
        let highest = policy(random: 1)
        #expect(
            (1...6).map { highest.retryDelay(after: status(503), request: get, attempt: $0) } == [
                0.5, 1, 2, 4, 4, 4,
            ])
        #expect(policy(random: 0).retryDelay(after: status(503), request: get, attempt: 3) == 0)
        #expect(policy(random: 0.5).retryDelay(after: status(503), request: get, attempt: 2) == 0.5)
        #expect(
            policy(random: 1, attempts: 2_000).retryDelay(after: status(503), request: get, attempt: 1_000)
                == 4)
    }

    @Test("at most maximumAttempts in all")
    func attemptLimit() {
        let limited = policy(random: 1, attempts: 3)
        #expect(limited.retryDelay(after: status(503), request: get, attempt: 2) != nil)
        #expect(limited.retryDelay(after: status(503), request: get, attempt: 3) == nil)
    }

    @Test("Retry-After in seconds or as an HTTP date, capped at maximumDelay, on 429 and 503")
    func retryAfter() {
        let any = policy(random: 0)
        #expect(
            any.retryDelay(after: status(429, headers: ["Retry-After": "2"]), request: get, attempt: 1) == 2)
        #expect(
            any.retryDelay(after: status(503, headers: ["Retry-After": "120"]), request: get, attempt: 1) == 4
        )
        #expect(
            any.retryDelay(after: status(500, headers: ["Retry-After": "2"]), request: get, attempt: 1) == 0)
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(StandardRetryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:23 GMT", now: now) == 3)
        #expect(StandardRetryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:00 GMT", now: now) == 0)
        #expect(StandardRetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(StandardRetryPolicy.retryAfter("-1", now: now) == nil)
    }

    @Test("retried: transient statuses, timeouts, connection failures; not the rest")
    func whatIsRetried() {
        let any = policy(random: 1)
        for code in [408, 429, 500, 502, 503, 504] {
            #expect(any.retryDelay(after: status(code), request: get, attempt: 1) != nil, "\(code)")
        }
        for code in [400, 401, 403, 404, 409, 422, 501] {
            #expect(any.retryDelay(after: status(code), request: get, attempt: 1) == nil, "\(code)")
        }
        let context = APIError.Context(request: get)
        #expect(any.retryDelay(after: .timedOut(context: context), request: get, attempt: 1) != nil)
        #expect(
            any.retryDelay(
                after: .transport(underlying: URLError(.cannotConnectToHost), context: context), request: get,
                attempt: 1) != nil)
        #expect(
            any.retryDelay(
                after: .transport(underlying: URLError(.secureConnectionFailed), context: context),
                request: get,
                attempt: 1) == nil)
        #expect(any.retryDelay(after: .cancelled, request: get, attempt: 1) == nil)
        #expect(
            any.retryDelay(after: .responseTooLarge(limit: 1, context: context), request: get, attempt: 1)
                == nil)
    }

    @Test("only idempotent methods, or requests with an Idempotency-Key")
    func idempotency() {
        let any = policy(random: 1)
        for method in ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"] {
            var request = get
            request.httpMethod = method
            #expect(any.retryDelay(after: status(503), request: request, attempt: 1) != nil, "\(method)")
        }
        var post = get
        post.httpMethod = "POST"
        #expect(any.retryDelay(after: status(503), request: post, attempt: 1) == nil)
        post.setValue("key-1", forHTTPHeaderField: "Idempotency-Key")
        #expect(any.retryDelay(after: status(503), request: post, attempt: 1) != nil)
    }
}
