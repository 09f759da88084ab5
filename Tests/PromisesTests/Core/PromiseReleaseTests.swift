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
        // A serial queue of the test's own: once a later block has run there, the block that ran
        // the handler has returned and let go of what it held.
        let queue = DispatchQueue(label: "test.release")
        do {
            let token = Token()
            weakToken = token
            observed = promise.onSuccess(in: queue) { _ in withExtendedLifetime(token) {} }
        }
        #expect(weakToken != nil)
        resolver.fulfill(1)
        _ = try await observed.value
        queue.sync {}
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
        // As above: once a later block has run on this serial queue, the block that ran the
        // handler has let go of it (awaiting `observed` alone raced that release under TSan).
        let queue = DispatchQueue(label: "test.release.owner")
        do {
            let owner = Owner()
            weakOwner = owner
            observed = owner.promise.onSuccess(in: queue) { _ in withExtendedLifetime(owner) {} }
            owner.resolver.fulfill(1)
        }
        _ = try await observed.value
        queue.sync {}
        #expect(weakOwner == nil)
    }

    /// The deinitialiser skips the header when the outcome is plain data; these prove it still
    /// destroys outcomes that hold references, however the promise was settled or made.
    @Test("a promise's value, error and handlers are released with it", arguments: 0..<5)
    func outcomeReleased(way: Int) async throws {
        struct TokenError: Error { let token: Token }
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            switch way {
            case 0: _ = Promise(value: token)
            case 1: _ = Promise<Int>(error: TokenError(token: token))
            case 2:
                let (promise, resolver) = Promise<Token>.pending()
                resolver.fulfill(token)
                #expect(try await promise.value === token)
            case 3:
                let (promise, resolver) = Promise<Int>.pending()
                resolver.reject(TokenError(token: token))
                _ = await promise.result
            default:
                // Pending forever: released with its handler unrun.
                let (promise, resolver) = Promise<Int>.pending()
                promise.onSuccess { _ in withExtendedLifetime(token) {} }
                withExtendedLifetime(resolver) {}
            }
        }
        #expect(weakToken == nil)
    }
}
