/// Changes every request a ``Provider``'s clients build, before it is encoded: add a field, a
/// query item or a header to all of them.
///
/// ```swift
/// struct PlaidCredentials: RequestModifier {
///     func modify(req: inout RequestBuilder) throws {
///         req.addField("client_id", value: "<client-id>")
///     }
/// }
/// ```
///
/// Modifiers run in order on the API's request queue, after the requirement's own arguments were
/// added; throwing fails the request with ``APIError/preprocessingFailed(underlying:)``.
public protocol RequestModifier: Sendable {
    /// Changes the request.
    func modify(req: inout RequestBuilder) throws
}

/// A ``RequestModifier`` from a closure, as `Provider.modifyRequests { … }` makes.
public struct AnyRequestModifier: RequestModifier {
    private let body: @Sendable (inout RequestBuilder) throws -> Void

    /// A modifier that runs `body`.
    public init(_ body: @escaping @Sendable (inout RequestBuilder) throws -> Void) {
        self.body = body
    }

    /// Runs the closure.
    public func modify(req: inout RequestBuilder) throws {
        try body(&req)
    }
}
