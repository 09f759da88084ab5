/// An article of a news feed, as the feed's API sends it.
public struct Article: Codable, Sendable, Equatable, Identifiable {
    /// The article's number in the feed.
    public var id: Int
    /// The headline.
    public var title: String

    /// An article.
    public init(id: Int, title: String) {
        self.id = id
        self.title = title
    }
}
