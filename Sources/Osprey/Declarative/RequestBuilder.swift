import Foundation

/// A request while `@API` code, and a ``Provider``'s modifiers, describe it: method, path with
/// its placeholders' values, query items, headers, and fields or a body. It becomes a
/// `URLRequest` on the API's request queue, like every Osprey request.
///
/// ```swift
/// let provider = Provider(baseURL: "https://sandbox.plaid.com")
///     .modifyRequests { (req: inout RequestBuilder) in
///         req.addField("client_id", value: "<client-id>")
///     }
/// ```
public struct RequestBuilder: Sendable {
    /// What the body is made of.
    enum Content: Sendable {
        case none
        case fields([(key: String, value: any Encodable & Sendable)])
        case value(any Encodable & Sendable)
        case parts([Part])
    }

    /// The base URL the path is joined to.
    public var baseURL: String
    /// The method.
    public var method: HTTPMethod
    /// The path, with `:name` or `{name}` placeholders; it may carry a static query.
    public var path: String
    /// Placeholder values, not yet encoded.
    public var parameters: [String: String] = [:]
    /// Query items, in order (encoded like ``URLParameters``).
    public var queries: [(key: String, value: any Encodable & Sendable)] = []
    /// Headers.
    public var headers: HTTPHeaders = [:]
    /// How fields and the body are encoded; JSON by default.
    public var bodyEncoding = BodyEncoding.json
    /// Maps query, field and body keys; the API's encoding setting when nil.
    public var keyMapping: KeyMapping?
    /// Decodes this request's successful responses instead of the API's parser, when set.
    public var responseDecoder: JSONDecoder?
    var content = Content.none
    let modifiers: [any RequestModifier]

    /// A builder for `method` and `path` on `baseURL`.
    public init(baseURL: String, method: HTTPMethod, path: String) {
        self.init(baseURL: baseURL, method: method, path: path, modifiers: [])
    }

    init(baseURL: String, method: HTTPMethod, path: String, modifiers: [any RequestModifier]) {
        self.baseURL = baseURL
        self.method = method
        self.path = path
        self.modifiers = modifiers
    }

    /// Sets the value of the path placeholder `:key` (or `{key}`); it is sent as one encoded
    /// segment, whatever it contains.
    public mutating func addParameter(_ key: String, value: some LosslessStringConvertible) {
        parameters[key] = value.description
    }

    /// Sets the value of a path placeholder from a raw-value type, such as a `String` enum.
    public mutating func addParameter<Value: RawRepresentable>(_ key: String, value: Value)
    where Value.RawValue: LosslessStringConvertible {
        parameters[key] = value.rawValue.description
    }

    /// Sets the value of a path placeholder from its description, such as a `UUID`.
    @_disfavoredOverload
    public mutating func addParameter(_ key: String, value: some CustomStringConvertible) {
        parameters[key] = value.description
    }

    /// Adds a query item; nil adds nothing.
    public mutating func addQuery<Value: Encodable & Sendable>(_ key: String, value: Value?) {
        guard let value else { return }
        queries.append((key, value))
    }

    /// Adds a header; nil adds nothing.
    public mutating func addHeader<Value: CustomStringConvertible>(_ name: String, value: Value?) {
        guard let value else { return }
        headers.add(name: name, value: value.description)
    }

    /// Adds headers (a later value for the same name replaces an earlier one).
    public mutating func addHeaders(_ headers: [String: String]) {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { self.headers[name] = value }
    }

    /// Sets the `Authorization` header.
    public mutating func addAuthorization(_ authorization: AuthorizationHeader) {
        headers["Authorization"] = authorization.value
    }

    /// Adds a body field; nil adds nothing. A body set with ``setBody(_:)`` is replaced.
    public mutating func addField<Value: Encodable & Sendable>(_ key: String, value: Value?) {
        guard let value else { return }
        if case .fields(let fields) = content {
            content = .fields(fields + [(key, value)])
        } else {
            content = .fields([(key, value)])
        }
    }

    /// Adds a multipart part, named `key` unless the part has a name; nil adds nothing.
    public mutating func addPart(_ key: String, _ part: Part?) {
        guard var part else { return }
        if part.name.isEmpty { part.name = key }
        if case .parts(let parts) = content {
            content = .parts(parts + [part])
        } else {
            content = .parts([part])
        }
    }

    /// Sets the whole body, replacing any fields.
    public mutating func setBody(_ value: some Encodable & Sendable) {
        content = .value(value)
    }
}
