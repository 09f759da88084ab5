import Promises

extension Promise {
    /// Calls a completion handler with the outcome, on the promise's default queue (for an API's
    /// promise, its response queue); a cancellation is a `CancellationError`. For callback-style
    /// requirements of `@API` protocols.
    @_documentation(visibility: internal)
    public func _deliver(to completion: @escaping (Result<Value, any Error>) -> Void) {
        let completion = UncheckedCompletion(call: completion)
        _ = onResult { completion.call($0) }
    }
}

extension Promise where Value == Response {
    /// Calls a completion handler with the response, or with a ``Response`` whose `error` says
    /// why the request failed (with the status, headers and body when a response arrived).
    @_documentation(visibility: internal)
    public func _deliver(to completion: @escaping (Response) -> Void) {
        let completion = UncheckedCompletion(call: completion)
        _ = onResult { result in
            switch result {
            case .success(let response): completion.call(response)
            case .failure(let error): completion.call(Response(failure: error))
            }
        }
    }
}

/// A completion handler carried to the queue it runs on. Papyrus's handlers are not `@Sendable`;
/// each is called exactly once, on one queue, so it is never run concurrently.
struct UncheckedCompletion<Argument>: @unchecked Sendable {
    let call: (Argument) -> Void
}
