/// A repository, with the fields of GitHub's answer this example reads (JSON keys in
/// snake_case: `full_name`, `stargazers_count`).
public struct Repository: Codable, Sendable, Equatable {
    /// The name, such as `osprey`.
    public var name: String
    /// The owner and the name, such as `octocat/osprey`.
    public var fullName: String
    /// How many people starred it.
    public var stargazersCount: Int

    /// A repository.
    public init(name: String, fullName: String, stargazersCount: Int) {
        self.name = name
        self.fullName = fullName
        self.stargazersCount = stargazersCount
    }
}

/// What `POST /user/repos` takes to create a repository.
public struct NewRepository: Codable, Sendable, Equatable {
    /// The name.
    public var name: String
    /// A short description, left out of the body when nil.
    public var description: String?
    /// Whether only the owner (and collaborators) can see it.
    public var isPrivate: Bool

    enum CodingKeys: String, CodingKey {
        case name
        case description
        // GitHub's key is `private`, a Swift keyword.
        case isPrivate = "private"
    }

    /// A repository to create.
    public init(name: String, description: String? = nil, isPrivate: Bool = false) {
        self.name = name
        self.description = description
        self.isPrivate = isPrivate
    }
}
