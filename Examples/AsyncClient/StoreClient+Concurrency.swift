extension StoreClient {
    /// A product and its reviews, asked for at the same time with `async let`.
    ///
    /// If one request fails, leaving the scope cancels the other: its request is cancelled too.
    /// - Parameter id: The product's number.
    /// - Returns: The product's page.
    /// - Throws: The first failure, or `CancellationError`.
    func page(for id: Int) async throws -> ProductPage {
        async let product = product(id)
        async let reviews = reviews(of: id)
        return try await ProductPage(product: product, reviews: reviews)
    }

    /// Several products, fetched by a task group with at most `maximumConcurrent` requests in
    /// flight (a server's rate limit; URLSession's own limit per host is about six).
    ///
    /// The first failure ends the group: the tasks still running are cancelled, and with them
    /// their requests.
    /// - Parameters:
    ///   - ids: The products' numbers.
    ///   - maximumConcurrent: How many requests may be in flight at once.
    /// - Returns: The products, in the order of `ids` (whatever order they arrived in).
    /// - Throws: The first failure, or `CancellationError`.
    func products(_ ids: [Int], maximumConcurrent: Int = 4) async throws -> [Product] {
        try await withThrowingTaskGroup(of: (Int, Product).self) { group in
            // The first few at once, then one more each time one finishes.
            let width = max(1, maximumConcurrent)
            for index in ids.indices.prefix(width) {
                group.addTask { (index, try await product(ids[index])) }
            }
            var nextIndex = min(width, ids.count)
            var products = [Product?](repeating: nil, count: ids.count)
            while let (index, fetched) = try await group.next() {
                products[index] = fetched
                guard nextIndex < ids.count else { continue }
                group.addTask { [nextIndex] in (nextIndex, try await product(ids[nextIndex])) }
                nextIndex += 1
            }
            return products.compactMap { $0 }
        }
    }
}
