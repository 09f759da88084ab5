import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns response bodies into values, and error bodies into errors. ``JSONParser`` is the
/// built-in one; conform your own type for other formats.
///
/// An API holds its parser immutably and may call it from several background threads at once,
/// so implementations must not keep mutable state (`JSONDecoder.decode` is safe to share).
public protocol ResponseParser {
    /// The `Accept` header sent with every request, unless the request sets its own.
    var acceptHeader: String? { get }

    /// Decodes a successful response's body.
    /// - Throws: Any error: the request fails with ``APIError/parsingFailed(underlying:context:)``.
    func getInstance<T: Decodable>(from data: Data, response: URLResponse?) throws -> T

    /// Makes a typed error from an unacceptable response's body (such as `{"code": …, "message":
    /// …}`), or nil. It becomes the `serverError` of ``APIError/unacceptableStatus(context:serverError:)``.
    func getError(from data: Data, response: URLResponse?) -> (any Error)?
}

extension ResponseParser {
    /// No `Accept` header.
    public var acceptHeader: String? { nil }

    /// No typed server errors.
    public func getError(from data: Data, response: URLResponse?) -> (any Error)? { nil }
}
