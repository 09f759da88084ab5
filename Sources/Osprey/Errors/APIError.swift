import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error type of Osprey: a case per pipeline stage, each carrying what exists at that
/// stage (the request, the response, the status code, the body, capped at
/// ``APIError/Context/maximumBodyBytes``). Descriptions never contain credentials.
///
/// ```swift
/// api.user().onError { error in
///     if let error = error as? APIError, error.statusCode == 404 { showNotFound() }
/// }
/// ```
public enum APIError: Error, Sendable {
    /// The request could not be built: an invalid URL, method or header, a body on a GET, a
    /// route that would leave the API's origin. Nothing was sent.
    case invalidRequest(reason: String)
    /// The parameters could not be encoded into a query or body. Nothing was sent.
    case encodingFailed(reason: String, underlying: (any Error)?)
    /// A `preprocess()` hook (of the parameters or of the API) threw. Nothing was sent.
    case preprocessingFailed(underlying: any Error)
    /// A ``RequestAdapter`` failed (for example, a token could not be refreshed). Nothing was
    /// sent in that attempt.
    case adaptationFailed(underlying: any Error)
    /// The request could not be completed: no connection, a dropped connection, a truncated
    /// body, a TLS failure. Carries the `URLError` (or other transport error).
    case transport(underlying: any Error, context: Context)
    /// The idle timeout or the total deadline passed.
    case timedOut(context: Context)
    /// The response was larger than the API's `maximumResponseBytes`.
    case responseTooLarge(limit: Int, context: Context)
    /// A redirect was refused: too many, to another scheme than http(s), or from https to http.
    case redirectRefused(reason: String, context: Context)
    /// The status code was not accepted (by default, anything outside `200..<300`).
    /// `serverError` is what the parser's `getError(from:response:)` made of the body, if anything.
    case unacceptableStatus(context: Context, serverError: (any Error)?)
    /// The body could not be turned into the requested type.
    case parsingFailed(underlying: any Error, context: Context)
    /// A local file could not be read or written: a download's file, or its move into place
    /// (for example, because the destination exists and overwriting was not allowed).
    case fileFailed(reason: String, underlying: (any Error)?, context: Context?)
    /// The request was cancelled.
    case cancelled

    /// What is known about the exchange when an error happens.
    public struct Context: Sendable, CustomStringConvertible {
        /// Bodies kept in errors are cut to this many bytes.
        public static let maximumBodyBytes = 64 * 1024

        /// The request as sent (its credentials are in here: do not log it; log `description`).
        public let request: URLRequest?
        /// The response, if one arrived.
        public let response: HTTPURLResponse?
        /// The response body, cut to ``maximumBodyBytes``.
        public let data: Data?

        /// Creates a context, capping the body.
        public init(request: URLRequest?, response: HTTPURLResponse? = nil, data: Data? = nil) {
            self.request = request
            self.response = response
            // A copy of the prefix: a slice would keep the whole body alive with the error.
            self.data = data.map {
                $0.count > Self.maximumBodyBytes
                    ? $0.prefix(Self.maximumBodyBytes).withUnsafeBytes { Data($0) } : $0
            }
        }

        /// `METHOD url -> status`, with credentials redacted (`an unknown request` for a context
        /// made without one).
        public var description: String {
            var text =
                request.map {
                    "\($0.httpMethod ?? "GET") \($0.url.map { Redaction.url($0.absoluteString) } ?? "(no URL)")"
                } ?? "an unknown request"
            if let response { text += " -> \(response.statusCode)" }
            return text
        }
    }
}

extension APIError {
    /// The stage's context, when the request got that far.
    public var context: Context? {
        switch self {
        case .transport(_, let context), .timedOut(let context), .responseTooLarge(_, let context),
            .redirectRefused(_, let context), .unacceptableStatus(let context, _),
            .parsingFailed(_, let context):
            context
        case .fileFailed(_, _, let context):
            context
        case .invalidRequest, .encodingFailed, .preprocessingFailed, .adaptationFailed, .cancelled:
            nil
        }
    }

    /// The HTTP status code, when a response arrived.
    public var statusCode: Int? { context?.response?.statusCode }
    /// The response, when one arrived.
    public var response: HTTPURLResponse? { context?.response }
    /// The response body (capped), when one arrived.
    public var data: Data? { context?.data }
    /// The request as sent, when it was built.
    public var request: URLRequest? { context?.request }

    /// The error this one wraps, if any.
    public var underlyingError: (any Error)? {
        switch self {
        case .encodingFailed(_, let underlying), .fileFailed(_, let underlying, _): underlying
        case .transport(let underlying, _), .parsingFailed(let underlying, _),
            .preprocessingFailed(let underlying), .adaptationFailed(let underlying):
            underlying
        case .unacceptableStatus(_, let serverError): serverError
        case .invalidRequest, .timedOut, .responseTooLarge, .redirectRefused, .cancelled: nil
        }
    }
}

extension APIError: CustomStringConvertible, LocalizedError {
    /// A one-line explanation, safe to log: no credentials, no query values.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            "Invalid request: \(reason)"
        case .encodingFailed(let reason, let underlying):
            "Encoding failed: \(reason)" + (underlying.map { " (\($0))" } ?? "")
        case .preprocessingFailed(let underlying):
            "Preprocessing failed: \(underlying)"
        case .adaptationFailed(let underlying):
            "Request adapter failed: \(underlying)"
        case .transport(let underlying, let context):
            "Transport error for \(context): \(Redaction.error(underlying))"
        case .timedOut(let context):
            "Timed out: \(context)"
        case .responseTooLarge(let limit, let context):
            "Response larger than \(limit) bytes: \(context)"
        case .redirectRefused(let reason, let context):
            "Redirect refused (\(reason)): \(context)"
        case .unacceptableStatus(let context, let serverError):
            "Unacceptable status: \(context)" + (serverError.map { " (\($0))" } ?? "")
        case .parsingFailed(let underlying, let context):
            "Parsing failed for \(context): \(underlying)"
        case .fileFailed(let reason, let underlying, _):
            "File error: \(reason)" + (underlying.map { " (\($0))" } ?? "")
        case .cancelled:
            "Cancelled"
        }
    }

    /// The same as `description`.
    public var errorDescription: String? { description }

    /// The same as `description` (Papyrus's name for it).
    public var message: String { description }
}
