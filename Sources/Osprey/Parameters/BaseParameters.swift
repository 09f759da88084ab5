import Foundation
import Promises

/// The common part of Osprey's parameter classes: mutable headers, a timeout, and an optional
/// ``ParameterEncoding`` of their own. Subclass it (or one of its subclasses) to write parameters
/// that prepare themselves in ``preprocess()``.
///
/// Swift 6 asks subclasses to restate the conformance: `class MyParameters: JSONParameters,
/// @unchecked Sendable`. That is safe as long as the subclass keeps its own mutable state behind
/// a lock, as this class does for its headers.
open class BaseParameters: RequestParameters, @unchecked Sendable {
    // @unchecked: the only mutable state, `headers`, is read and written under `state`'s lock.
    private let state: Locked<HTTPHeaders>

    /// Seconds of inactivity after which the request fails; nil for the API's default.
    public let timeout: TimeInterval?
    /// How these parameters write a query or form body; nil for the API's setting.
    public let encoding: ParameterEncoding?

    /// Creates parameters with headers, a timeout and an encoding.
    public init(headers: HTTPHeaders = [:], timeout: TimeInterval? = nil, encoding: ParameterEncoding? = nil)
    {
        state = Locked(headers)
        self.timeout = timeout
        self.encoding = encoding
    }

    /// Headers sent with the request; safe to change from any thread, for example in
    /// ``preprocess()``.
    public var headers: HTTPHeaders {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Runs before every request is built, on the request queue. Override it to prepare
    /// headers (a token, a signature); throwing fails the request before anything is sent.
    open func preprocess() throws {}

    /// Writes this type's query or body; the base class writes nothing.
    open func encode(into draft: inout RequestDraft) throws {}
}
