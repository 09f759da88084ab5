import Foundation
import Osprey

// osprey-example-async: an async/await client over Osprey's promises, with structured
// concurrency and cancellation, against a loopback server (no internet needed). Run it with
// `swift run osprey-example-async`; it exits with 1 as soon as something is not as expected.

let store = try FakeStore()
defer { store.stop() }
let client = StoreClient(api: StoreAPI(baseURL: store.baseURL))

await step("1. async let: a product and its reviews, both requests in flight at once") {
    store.overlap.expect(2)
    let page = try await client.page(for: 1)
    print(
        "  \(page.product.name): \(page.reviews.map { "\($0.author) \($0.stars)★" }.joined(separator: ", "))")
    check(page.product == Product(id: 1, name: "Product 1") && page.reviews.count == 2, "unexpected \(page)")
    check(store.overlap.highest == 2, "the two requests did not overlap (\(store.overlap.highest) at most)")
}

await step("2. A task group: six products, at most three requests in flight") {
    store.overlap.expect(3)
    let products = try await client.products(Array(1...6), maximumConcurrent: 3)
    print("  \(products.map(\.name).joined(separator: ", ")); \(store.overlap.highest) in flight at most")
    check(products.map(\.id) == Array(1...6), "expected the products in the order asked for, got \(products)")
    check(store.overlap.highest == 3, "expected exactly 3 requests at once, saw \(store.overlap.highest)")
}

// Cancellation, against a server of its own whose connections close after each answer: once
// the cancelled requests' connections are gone too, none is left open.
let slowStore = try FakeStore()
defer { slowStore.stop() }
var closing = APIConfiguration()
closing.headers["Connection"] = "close"
let slowClient = StoreClient(api: StoreAPI(baseURL: slowStore.baseURL, configuration: closing))

await step("3. One request of a group fails: the group's other requests are cancelled") {
    let start = Date()
    do {
        let ids = [FakeStore.slowProduct, FakeStore.missingProduct, FakeStore.slowProduct]
        _ = try await slowClient.products(ids)
        check(false, "expected the group to fail")
    } catch let error as APIError {
        let elapsed = Date().timeIntervalSince(start)
        print("  failed after \(String(format: "%.2f", elapsed)) s with status \(error.statusCode ?? 0)")
        check(error.statusCode == 404, "expected the 404, got \(error)")
        check(elapsed < 2, "the group waited for the slow requests (\(elapsed) s)")
    }
    let closed = await slowStore.server.waitUntilNoOpenConnections(timeout: 2)
    check(closed, "the slow requests' connections are still open: they were not cancelled")
    print("  the server saw every connection close")
}

await step("4. Cancelling a task cancels the request it awaits") {
    let sent = slowStore.server.requests.count
    let task = Task { try await slowClient.product(FakeStore.slowProduct) }
    let arrived = await slowStore.server.waitForRequests(count: sent + 1, timeout: 2)
    check(arrived, "the request never reached the server")
    let start = Date()
    task.cancel()
    let result = await task.result
    let elapsed = Date().timeIntervalSince(start)
    guard case .failure(let error) = result, error is CancellationError else {
        return check(false, "expected CancellationError, got \(result)")
    }
    print("  CancellationError after \(String(format: "%.3f", elapsed)) s")
    check(elapsed < 1, "cancellation took \(elapsed) s")
    let closed = await slowStore.server.waitUntilNoOpenConnections(timeout: 2)
    check(closed, "the request's connection is still open: it was not cancelled")
    print("  the server saw the connection close")
}

print("✓ done")
