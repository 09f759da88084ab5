import Dispatch
import Testing

@testable import Promises

@Suite("Handlers and captured objects are released at settlement")
struct PromiseReleaseTests {
    @Test("a handler's captures are freed once it ran, while the promise lives on")
    func ranHandlerReleased() async throws {
        weak var weakToken: Token?
        let (promise, resolver) = Promise<Int>.pending()
        let observed: Promise<Int>
        do {
            let token = Token()
            weakToken = token
            observed = promise.onSuccess { _ in withExtendedLifetime(token) {} }
        }
        #expect(weakToken != nil)
        resolver.fulfill(1)
        _ = try await observed.value
        #expect(weakToken == nil)
        withExtendedLifetime(promise) {}
    }

    @Test("a handler whose branch is not taken is freed at settlement too")
    func skippedHandlerReleased() async throws {
        weak var weakToken: Token?
        let (promise, resolver) = Promise<Int>.pending()
        let observed: Promise<Int>
        do {
            let token = Token()
            weakToken = token
            observed = promise.onError { _ in withExtendedLifetime(token) {} }
        }
        resolver.fulfill(1)
        _ = try await observed.value
        #expect(weakToken == nil)
    }

    @Test("a producer's cancel hook is freed when the promise is fulfilled")
    func cancelHookReleased() async throws {
        weak var weakToken: Token?
        let (promise, resolver) = Promise<Int>.pending()
        do {
            let token = Token()
            weakToken = token
            resolver.onCancel { withExtendedLifetime(token) {} }
        }
        #expect(weakToken != nil)
        resolver.fulfill(1)
        #expect(weakToken == nil)
        _ = try await promise.value
    }

    @Test("an object that owns a promise whose handler captures the object is freed after settling")
    func noCycleAfterSettlement() async throws {
        final class Owner: Sendable {
            let promise: Promise<Int>
            let resolver: Resolver<Int>
            init() { (promise, resolver) = Promise<Int>.pending() }
        }
        weak var weakOwner: Owner?
        let observed: Promise<Int>
        do {
            let owner = Owner()
            weakOwner = owner
            observed = owner.promise.onSuccess { _ in withExtendedLifetime(owner) {} }
            owner.resolver.fulfill(1)
        }
        _ = try await observed.value
        #expect(weakOwner == nil)
    }
}
