import Dispatch
import Foundation
import Testing

@testable import Promises

/// A view model in the style of the "Migrating from Osprey 0.14" article: it updates its own main-actor state from
/// handlers with no `nonisolated(unsafe)`, `assumeIsolated` or other boilerplate. That this file
/// compiles is half of the test.
@MainActor
final class ProductsViewModel {
    var products: [String] = []
    var errorText: String?
    var isLoading = true

    func load(_ request: Promise<[String]>) -> Promise<[String]> {
        request
            .onSuccess { @MainActor products in self.products = products }
            .onError { @MainActor error in self.errorText = "\(error)" }
            .finally { @MainActor in self.isLoading = false }
    }

    /// The article's shape: `.onSuccess(in: .main, updateProducts)` with main-actor methods.
    func loadWithMethods(_ request: Promise<[String]>) -> Promise<[String]> {
        request
            .onSuccess(in: .main, updateProducts)
            .onError(in: .main, alertError(_:))
            .finally(in: .main, updateInterface)
    }

    func count(_ request: Promise<[String]>) -> Promise<Int> {
        request.then(in: .main) { @MainActor products in products.count + self.products.count }
    }

    func updateProducts(_ products: [String]) { self.products = products }
    func alertError(_ error: any Error) { errorText = "alert: \(error)" }
    func updateInterface() { isLoading = false }
}

@Suite("Main-actor handlers")
struct PromiseMainActorTests {
    @Test("a @MainActor class updates its state from @MainActor closures")
    @MainActor
    func closures() async throws {
        let model = ProductsViewModel()
        _ = try await model.load(Promise(value: ["a", "b"])).value
        #expect(model.products == ["a", "b"])
        #expect(!model.isLoading)
        _ = await model.load(Promise(error: TestError(code: 2))).result
        #expect(model.errorText == "\(TestError(code: 2))")
    }

    @Test("onSuccess(in: .main, method) runs main-actor methods, as in the migration article")
    @MainActor
    func methods() async throws {
        let model = ProductsViewModel()
        _ = try await model.loadWithMethods(Promise(value: ["c"])).value
        #expect(model.products == ["c"])
        #expect(!model.isLoading)
        _ = await model.loadWithMethods(Promise(error: TestError(code: 3))).result
        #expect(model.errorText == "alert: \(TestError(code: 3))")
        #expect(try await model.count(Promise(value: ["x", "y"])).value == 3)
    }

    @Test("plain closures without in: run on the default queue, not the main thread")
    func plainClosuresStayOffMain() async throws {
        let ranOnMain = Locked<[Bool]>([])
        let tail = Promise(value: 1)
            .onSuccess { _ in ranOnMain.withLock { $0.append(Thread.isMainThread) } }
            .finally { ranOnMain.withLock { $0.append(Thread.isMainThread) } }
        #expect(try await tail.then { _ in Thread.isMainThread }.value == false)
        #expect(ranOnMain.withLock { $0 } == [false, false])
    }
}
