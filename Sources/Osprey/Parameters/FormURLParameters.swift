import Foundation

/// An `application/x-www-form-urlencoded` body:
/// `FormURLParameters(["name": "a b", "tags": ["x", "y"]])` → `name=a%20b&tags%5B%5D=x&tags%5B%5D=y`.
///
/// Encoded like ``URLParameters`` (RFC 3986 escaping, sorted keys, bracket notation). On a `GET`
/// or `HEAD`, which carry no body, the parameters go to the query instead.
open class FormURLParameters: KeyValueParameters, @unchecked Sendable {
    // @unchecked: no state of its own; see KeyValueParameters.

    /// Writes the form body, or the query for `GET` and `HEAD`.
    open override func encode(into draft: inout RequestDraft) throws {
        if draft.method.forbidsBody {
            return try draft.appendQuery(parameters, encoding: encoding)
        }
        let form = try FormEncoder(encoding: encoding ?? draft.encoding).encode(parameters)
        draft.setBody(Data(form.utf8), contentType: "application/x-www-form-urlencoded")
    }
}
