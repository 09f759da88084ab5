import Foundation
import Promises

/// The handlers of a mock that `@Mock` generates, by requirement; safe to use from any thread.
///
/// Generated mocks call it; tests use the mock's `mock…` methods rather than this type.
@_documentation(visibility: internal)
public final class MockRegistry: @unchecked Sendable {
    // @unchecked: `handlers` is only read and written under its lock. Handlers are stored as
    // given (Papyrus's are not @Sendable): a test sets them before calling the mock.

    private struct Key: Hashable {
        var requirement: String
        var type: ObjectIdentifier
    }

    private let handlers = Locked([Key: Any]())

    /// An empty registry.
    public init() {}

    /// Sets the handler for `requirement`, such as `getUser(id:)`, replacing any earlier one.
    public func set<Handler>(_ handler: Handler, for requirement: String) {
        handlers.withLock {
            $0[Key(requirement: requirement, type: ObjectIdentifier(Handler.self))] = handler
        }
    }

    /// The handler set for `requirement`.
    /// - Throws: ``MockError/notMocked(_:)`` when none was set.
    public func handler<Handler>(for requirement: String, as type: Handler.Type = Handler.self) throws
        -> Handler
    {
        let key = Key(requirement: requirement, type: ObjectIdentifier(Handler.self))
        guard let handler = handlers.withLock({ $0[key] }) as? Handler else {
            throw MockError.notMocked(requirement)
        }
        return handler
    }

    /// Runs `operation` in a task, for requirements that return a promise.
    public func promise<Value: Sendable>(_ operation: @escaping () async throws -> Value) -> Promise<Value> {
        let operation = UncheckedOperation(run: operation)
        return Promise { try await operation.run() }
    }

    /// Runs `operation` in a task and calls `completion` with its result.
    public func deliver<Value: Sendable>(
        to completion: @escaping (Result<Value, any Error>) -> Void,
        _ operation: @escaping () async throws -> Value
    ) {
        promise(operation)._deliver(to: completion)
    }

    /// Runs `operation` in a task and calls `completion` with its response, or with a
    /// ``Response`` carrying the error.
    public func deliver(
        to completion: @escaping (Response) -> Void, _ operation: @escaping () async throws -> Response
    ) {
        promise(operation)._deliver(to: completion)
    }
}

/// Why a generated mock could not answer.
public enum MockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The test called a requirement it gave no handler for.
    case notMocked(String)

    /// What went wrong, naming the requirement and the method that sets its handler.
    public var description: String {
        switch self {
        case .notMocked(let requirement):
            "\(requirement) was called, but the mock has no handler for it: set one with its mock… method first"
        }
    }
}

/// A mock handler moved into the task that runs it (see MockRegistry).
private struct UncheckedOperation<Value>: @unchecked Sendable {
    let run: () async throws -> Value
}
