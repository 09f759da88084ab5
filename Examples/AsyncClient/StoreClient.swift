/// The shop's API for async/await code: each method awaits the promise `StoreAPI` returns.
///
/// ```swift
/// let client = StoreClient(api: StoreAPI(baseURL: "https://shop.example"))
/// let product = try await client.product(1)
/// ```
///
/// Cancellation goes all the way down: cancelling the task that awaits a method makes the
/// promise's `value` throw `CancellationError` at once and cancels the promise, which cancels
/// the request (the server sees its connection close). No handler, no `Task` of its own.
struct StoreClient: Sendable {
    /// The promise-based client underneath.
    let api: StoreAPI

    /// One product.
    /// - Throws: `APIError` (a 404 for a product that does not exist), or `CancellationError`.
    func product(_ id: Int) async throws -> Product {
        try await api.product(id).value
    }

    /// A product's reviews.
    /// - Throws: `APIError`, or `CancellationError`.
    func reviews(of id: Int) async throws -> [Review] {
        try await api.reviews(of: id).value
    }
}
