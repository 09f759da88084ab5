import Dispatch
import Testing

@testable import Promises

@Suite("then: map and chain")
struct PromiseThenTests {
    @Test("maps a value")
    func map() async throws {
        #expect(try await Promise(value: 2).then { $0 * 10 }.then { "\($0)" }.value == "20")
    }

    @Test("an error thrown in the closure rejects the derived promise")
    func throwRejects() async {
        let promise = Promise(value: 1).then { _ -> Int in throw TestError(code: 3) }
        #expect(await promise.settledDescription == "rejected(3)")
    }

    @Test("a closure returning a promise is chained, not nested")
    func chain() async throws {
        let chained: Promise<String> = Promise(value: 4).then { value in
            Promise<String>.after(0.01, value: "v\(value)")
        }
        #expect(try await chained.value == "v4")
    }

    @Test("a rejection passes through every then without running it")
    func rejectionSkips() async {
        let ran = Counter()
        let promise = Promise<Int>(error: TestError(code: 8))
            .then { value -> Int in
                ran.increment()
                return value
            }
            .then { value -> Promise<Int> in
                ran.increment()
                return Promise(value: value)
            }
        #expect(await promise.settledDescription == "rejected(8)")
        #expect(ran.value == 0)
    }

    @Test("a rejected inner promise rejects the chain")
    func innerRejection() async {
        let promise = Promise(value: 1).then { _ in Promise<Int>(error: TestError(code: 6)) }
        #expect(await promise.settledDescription == "rejected(6)")
    }

    @Test("function references work, as in api.requestUser().then(api.getFavorites(of:))")
    func functionReference() async throws {
        final class API: Sendable {
            func user() -> Promise<String> { Promise(value: "ada") }
            func favorites(of user: String) -> Promise<[String]> { Promise(value: ["\(user)'s book"]) }
            func count(_ items: [String]) -> Int { items.count }
        }
        let api = API()
        let favorites = api.user().then(api.favorites(of:))
        #expect(try await favorites.value == ["ada's book"])
        #expect(try await favorites.then(api.count).value == 1)
    }

    @Test("runs on the queue given with in:")
    func queueSelection() async throws {
        let marker = QueueMarker("then")
        let onQueue = Promise(value: 1).then(in: marker.queue) { _ in marker.isCurrent }
        let chainedOnQueue = Promise(value: 1).then(in: marker.queue) { _ in Promise(value: marker.isCurrent)
        }
        #expect(try await onQueue.value)
        #expect(try await chainedOnQueue.value)
    }
}
