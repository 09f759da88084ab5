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
    /// A multipart part, and whether its name is a key (mapped like field keys).
    struct NamedPart: Sendable {
        var part: Part
        var isNamedByKey: Bool
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
    /// Body fields, in order.
    var fields: [(key: String, value: any Encodable & Sendable)] = []
    /// The whole body, when set; fields added beside it are merged into it.
    var body: (any Encodable & Sendable)?
    /// Multipart parts, in order.
    var parts: [NamedPart] = []
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

    /// Sets a header (replacing one set before, by an attribute say); nil sets nothing.
    @_disfavoredOverload
    public mutating func addHeader<Value: CustomStringConvertible>(_ name: String, value: Value?) {
        guard let value else { return }
        headers[name] = value.description
    }

    /// Sets a header from a raw-value type, such as a `String` enum; nil sets nothing.
    public mutating func addHeader<Value: RawRepresentable>(_ name: String, value: Value?)
    where Value.RawValue: CustomStringConvertible {
        guard let value else { return }
        headers[name] = value.rawValue.description
    }

    /// Sets a header to a list of values, joined with `, ` (RFC 9110 §5.3); nil sets nothing.
    public mutating func addHeader<Element: CustomStringConvertible>(_ name: String, value: [Element]?) {
        guard let value else { return }
        headers[name] = value.map(\.description).joined(separator: ", ")
    }

    /// Adds headers (a later value for the same name replaces an earlier one).
    public mutating func addHeaders(_ headers: [String: String]) {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { self.headers[name] = value }
    }

    /// Sets the `Authorization` header.
    public mutating func addAuthorization(_ authorization: AuthorizationHeader) {
        headers["Authorization"] = authorization.value
    }

    /// Adds a body field; nil adds nothing. Beside a whole body (``setBody(_:)``), fields are
    /// merged into it (it must encode as an object); in a multipart body they are text parts.
    public mutating func addField<Value: Encodable & Sendable>(_ key: String, value: Value?) {
        guard let value else { return }
        fields.append((key, value))
    }

    /// Adds a multipart part, named `key` (mapped like field keys) unless the part has a name of
    /// its own; nil adds nothing.
    public mutating func addPart(_ key: String, _ part: Part?) {
        guard var part else { return }
        let isNamedByKey = part.name.isEmpty
        if isNamedByKey { part.name = key }
        parts.append(NamedPart(part: part, isNamedByKey: isNamedByKey))
    }

    /// Sets the whole body; nil sets none.
    public mutating func setBody<Value: Encodable & Sendable>(_ value: Value?) {
        guard let value else { return }
        body = value
    }
}
