import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Finds the exchange a session delegate callback belongs to.
final class TaskRegistry: Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])

    func register(_ task: URLSessionTask, for exchange: Exchange) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    func exchange(for task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func remove(_ task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }
}
