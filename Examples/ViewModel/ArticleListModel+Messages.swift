import Foundation
import Osprey

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ArticleListModel {
    /// What to tell people when a load fails: the server's own explanation when it gave one,
    /// otherwise what they can do about it. Never the error's description, which is for logs.
    /// - Parameter error: Why the load failed.
    /// - Returns: A sentence to show.
    nonisolated static func message(for error: any Error) -> String {
        guard let error = error as? APIError else { return "Something went wrong." }
        if let refusal = error.underlyingError as? FeedError { return refusal.message }
        switch error {
        case .timedOut:
            return "The server took too long to answer. Try again."
        case .transport:
            return "The server could not be reached. Check your connection and try again."
        case .unacceptableStatus where (error.statusCode ?? 0) >= 500:
            return "The server had a problem. Try again later."
        case .parsingFailed:
            return "The server's answer could not be read."
        default:
            return "The articles could not be loaded."
        }
    }
}
