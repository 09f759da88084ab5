import Foundation

/// Everything a request carries besides its method and URL: query parameters, a body, headers.
///
/// Osprey ships ``URLParameters``, ``JSONParameters`` and ``FormURLParameters``; conform your own
/// type to encode anything else. Before each request is built, ``preprocess()`` runs on a
/// background queue: a subclass can fetch a token there.
///
/// ```swift
/// final class AuthenticatedJSONParameters: JSONParameters, @unchecked Sendable {
///     override func preprocess() throws {
///         headers["Authentication"] = try UserManager.shared.getToken()
///     }
/// }
/// ```
public protocol RequestParameters: Sendable {
    /// Headers sent with the request, added to the API's own.
    var headers: HTTPHeaders { get }
    /// Seconds of inactivity after which the request fails; nil for the API's default.
    var timeout: TimeInterval? { get }
    /// Runs before every request is built, on the request queue; throwing fails the request.
    func preprocess() throws
    /// Writes the query, body and headers into the request being built.
    /// - Throws: An error that fails the request before anything is sent.
    func encode(into draft: inout RequestDraft) throws
}

extension RequestParameters {
    /// No timeout of its own.
    public var timeout: TimeInterval? { nil }

    /// Nothing to prepare.
    public func preprocess() throws {}
}
