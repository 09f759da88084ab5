import Foundation

/// Query parameters: `URLParameters(["page": 1, "q": "a+b"])` → `?page=1&q=a%2Bb`.
///
/// Values may be strings, numbers, booleans, dates, URLs, UUIDs, string or integer enums, arrays
/// and nested dictionaries (see ``ParameterEncoding``); nil values are left out. Keys are sent
/// sorted. A heterogeneous nested literal needs its type spelled out:
/// `["filter": ["min": 2, "name": "x"] as [String: any Sendable]]`.
open class URLParameters: KeyValueParameters, @unchecked Sendable {
    // @unchecked: no state of its own; see KeyValueParameters.

    /// Appends the parameters to the URL's query.
    open override func encode(into draft: inout RequestDraft) throws {
        try draft.appendQuery(parameters, encoding: encoding)
    }
}
