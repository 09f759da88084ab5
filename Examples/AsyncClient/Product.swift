/// A product of the shop.
struct Product: Codable, Sendable, Equatable {
    /// The product's number.
    var id: Int
    /// What it is called.
    var name: String
}

/// What a customer thought of a product.
struct Review: Codable, Sendable, Equatable {
    /// Who wrote it.
    var author: String
    /// From 1 to 5.
    var stars: Int
}

/// Everything a product's page shows, fetched with two requests at once.
struct ProductPage: Sendable, Equatable {
    /// The product.
    var product: Product
    /// Its reviews.
    var reviews: [Review]
}
