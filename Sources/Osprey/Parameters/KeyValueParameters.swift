import Foundation

/// Parameters given as a dictionary: the common part of ``URLParameters`` and
/// ``FormURLParameters``, which differ only in where they write it.
open class KeyValueParameters: BaseParameters, @unchecked Sendable {
    // @unchecked: immutable after init; the inherited headers are locked by the base class.

    /// The parameters.
    public let parameters: [String: any Sendable]

    /// Creates dictionary parameters.
    public init(
        _ parameters: [String: any Sendable] = [:],
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil,
        encoding: ParameterEncoding? = nil
    ) {
        self.parameters = parameters
        super.init(headers: headers, timeout: timeout, encoding: encoding)
    }
}
