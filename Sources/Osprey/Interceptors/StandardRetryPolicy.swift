import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries idempotent requests after connection failures, timeouts and temporary server
/// errors, with capped exponential backoff and full jitter, honouring `Retry-After`.
///
/// ```swift
/// configuration.retryPolicy = StandardRetryPolicy(maximumAttempts: 4, baseDelay: 0.5)
/// ```
///
/// - Only idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE, TRACE) are retried, and any
///   request that carries an `Idempotency-Key` header: retrying a plain POST could charge a
///   card twice.
/// - Retried: connection failures (refused, lost, host not found, not connected), Osprey's
///   timeouts, and the statuses in ``retryableStatusCodes``. Never: 4xx other than 408 and 429,
///   TLS failures, cancellations, oversized or unparseable responses.
/// - The wait before attempt *n + 1* is a random fraction of `min(maximumDelay, baseDelay × 2ⁿ⁻¹)`;
///   a `Retry-After` header (seconds or an HTTP date) on a 429 or 503 replaces it, capped at
///   ``maximumDelay``.
public struct StandardRetryPolicy: RetryPolicy {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int
    /// The backoff before the second attempt, before jitter.
    public var baseDelay: TimeInterval
    /// The longest wait between attempts, `Retry-After` included.
    public var maximumDelay: TimeInterval
    /// Statuses worth another try.
    public var retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Methods that may be sent twice without harm (RFC 9110 §9.2.2).
    public var idempotentMethods: Set<String> = HTTPMethod.idempotentNames
    /// A number in `0...1` for the jitter; replace it in tests for predictable delays.
    public var random: @Sendable () -> Double = { Double.random(in: 0...1) }

    /// Creates a policy.
    public init(maximumAttempts: Int = 3, baseDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 30) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
    }

    /// See ``RetryPolicy/retryDelay(after:request:attempt:)``.
    public func retryDelay(after error: APIError, request: URLRequest, attempt: Int) -> TimeInterval? {
        guard attempt < maximumAttempts, isIdempotent(request), isRetryable(error) else { return nil }
        if let response = error.response, [429, 503].contains(response.statusCode),
            let retryAfter = Self.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
        {
            return min(maximumDelay, retryAfter)
        }
        let exponent = Double(min(max(attempt - 1, 0), 62))
        let ceiling = min(maximumDelay, baseDelay * pow(2, exponent))
        return ceiling * min(1, max(0, random()))
    }

    private func isIdempotent(_ request: URLRequest) -> Bool {
        idempotentMethods.contains(request.httpMethod ?? "GET")
            || request.value(forHTTPHeaderField: "Idempotency-Key") != nil
    }

    private func isRetryable(_ error: APIError) -> Bool {
        switch error {
        case .timedOut:
            return true
        case .unacceptableStatus(let context, _):
            return context.response.map { retryableStatusCodes.contains($0.statusCode) } ?? false
        case .transport(let underlying, _):
            guard let code = (underlying as? URLError)?.code else { return false }
            return Self.transientCodes.contains(code)
        default:
            return false
        }
    }

    private static let transientCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed,
        .notConnectedToInternet, .timedOut,
    ]

    /// The seconds a `Retry-After` value asks for: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), let seconds = Int(value), seconds >= 0 {
            return TimeInterval(seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
