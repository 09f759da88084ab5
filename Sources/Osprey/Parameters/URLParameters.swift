import Foundation

/// Query parameters: `URLParameters(["page": 1, "q": "a+b"])` → `?page=1&q=a%2Bb`.
///
/// Values may be strings, numbers, booleans, dates, URLs, UUIDs, string or integer enums, arrays
/// and nested dictionaries (see ``ParameterEncoding``); nil values are left out. Keys are sent
/// sorted. A heterogeneous nested literal needs its type spelled out:
/// `["filter": ["min": 2, "name": "x"] as [String: any Sendable]]`.
open class URLParameters: BaseParameters, @unchecked Sendable {
    // @unchecked: immutable after init; the inherited headers are locked by the base class.

    /// The query parameters.
    public let parameters: [String: any Sendable]

    /// Creates query parameters.
    public init(
        _ parameters: [String: any Sendable] = [:],
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil,
        encoding: ParameterEncoding? = nil
    ) {
        self.parameters = parameters
        super.init(headers: headers, timeout: timeout, encoding: encoding)
    }

    /// Appends the parameters to the URL's query.
    open override func encode(into draft: inout RequestDraft) throws {
        try draft.appendQuery(parameters, encoding: encoding)
    }
}
