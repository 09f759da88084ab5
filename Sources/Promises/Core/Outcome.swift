/// How a promise settled. Internal: users see `Result` (with `CancellationError`) or handlers.
@usableFromInline
enum Outcome<Value: Sendable>: Sendable {
    case fulfilled(Value)
    case rejected(any Error)
    case cancelled

    /// The outcome as a `Result`; cancellation becomes `CancellationError`.
    @inlinable
    var result: Result<Value, any Error> {
        switch self {
        case .fulfilled(let value): .success(value)
        case .rejected(let error): .failure(error)
        case .cancelled: .failure(CancellationError())
        }
    }

    /// The same failure for a promise of another type; nil when fulfilled.
    @inlinable
    func failure<Other>(as: Other.Type = Other.self) -> Outcome<Other>? {
        switch self {
        case .fulfilled: nil
        case .rejected(let error): .rejected(error)
        case .cancelled: .cancelled
        }
    }
}
