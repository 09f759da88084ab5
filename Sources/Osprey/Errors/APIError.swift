import Foundation

/// The one error type of Osprey: a case per pipeline stage, each carrying what exists at that
/// stage. Descriptions never contain credentials.
///
/// ```swift
/// api.user().onError { error in
///     if case APIError.invalidRequest(let reason) = error { print(reason) }
/// }
/// ```
public enum APIError: Error, Sendable {
    /// The request could not be built: an invalid URL, method or header, a body on a GET, a
    /// route that would leave the API's origin. Nothing was sent.
    case invalidRequest(reason: String)
    /// The parameters could not be encoded into a query or body. Nothing was sent.
    case encodingFailed(reason: String, underlying: (any Error)?)

    /// The error this one wraps, if any.
    public var underlyingError: (any Error)? {
        switch self {
        case .invalidRequest: nil
        case .encodingFailed(_, let underlying): underlying
        }
    }
}

extension APIError: CustomStringConvertible, LocalizedError {
    /// A one-line explanation, safe to log.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            "Invalid request: \(reason)"
        case .encodingFailed(let reason, let underlying):
            "Encoding failed: \(reason)" + (underlying.map { " (\($0))" } ?? "")
        }
    }

    /// The same as `description`.
    public var errorDescription: String? { description }
}
