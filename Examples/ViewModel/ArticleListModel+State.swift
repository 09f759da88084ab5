@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ArticleListModel {
    /// What the list screen shows.
    public enum State: Sendable, Equatable {
        /// Nothing asked for yet.
        case idle
        /// A spinner, or a progress bar when the fraction downloaded is known (0...1).
        case loading(progress: Double?)
        /// The articles.
        case loaded([Article])
        /// An explanation for people, and a retry button.
        case failed(message: String)
    }
}
