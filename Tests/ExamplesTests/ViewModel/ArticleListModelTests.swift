import Foundation
import Observation
import Osprey
import OspreyTesting
import Testing
import ViewModelExample

// Each test is marked available: Swift Testing refuses an availability on a suite type.
@Suite("ArticleListModel: loading, failing, retrying and cancelling on the main actor")
@MainActor
struct ArticleListModelTests {
    nonisolated static let articlesJSON =
        #"[{"id": 2, "title": "Osprey 1.0"}, {"id": 1, "title": "Promises, explained"}]"#
    nonisolated static let articles = [
        Article(id: 2, title: "Osprey 1.0"), Article(id: 1, title: "Promises, explained"),
    ]

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("a load shows a spinner, then the articles; loading again sends nothing")
    func loads() async throws {
        let mock = MockTransport()
        mock.route("GET", "/articles") { _ in .json(Self.articlesJSON) }
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: mock))
        #expect(model.state == .idle)

        let loading = model.load()
        #expect(model.state == .loading(progress: nil))
        #expect(try await loading.value == Self.articles)
        #expect(model.state == .loaded(Self.articles))

        #expect(try await model.load().value == Self.articles)
        #expect(mock.requests.map(\.target) == ["/articles"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("a load asked for twice while in flight sends one request")
    func joinsTheLoadInFlight() async throws {
        let mock = MockTransport()
        mock.route("GET", "/articles") { _ in .json(Self.articlesJSON) }
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: mock))
        let first = model.load()
        let second = model.retry()
        _ = try await (first.value, second.value)
        #expect(model.state == .loaded(Self.articles))
        #expect(mock.requests.count == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("a failure shows the server's message; retry loads again and shows the articles")
    func failsThenRetries() async throws {
        let mock = MockTransport()
        mock.route(
            "GET", "/articles",
            replies: [.json(#"{"message": "Down for maintenance"}"#, status: 503), .json(Self.articlesJSON)])
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: mock))

        _ = await model.load().result
        #expect(model.state == .failed(message: "Down for maintenance"))

        let retrying = model.retry()
        #expect(model.state == .loading(progress: nil))
        #expect(try await retrying.value == Self.articles)
        #expect(model.state == .loaded(Self.articles))
        #expect(mock.requests.count == 2)
    }

    /// The failures a list screen meets, each with the sentence it shows.
    enum Failure: String, CaseIterable, Sendable {
        case refusedWithAMessage, serverError, unreachable, unreadableAnswer, notFound

        var reply: MockTransport.Reply {
            switch self {
            case .refusedWithAMessage: .json(#"{"message": "Slow down"}"#, status: 429)
            case .serverError: .status(500)
            case .unreachable: .failure(URLError(.cannotConnectToHost))
            case .unreadableAnswer: .json(#"{"articles": []}"#)
            case .notFound: .status(404)
            }
        }

        var message: String {
            switch self {
            case .refusedWithAMessage: "Slow down"
            case .serverError: "The server had a problem. Try again later."
            case .unreachable: "The server could not be reached. Check your connection and try again."
            case .unreadableAnswer: "The server's answer could not be read."
            case .notFound: "The articles could not be loaded."
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(
        "each kind of failure shows a sentence for people, the server's own when it sent one",
        arguments: Failure.allCases)
    func failureMessages(failure: Failure) async throws {
        let mock = MockTransport()
        mock.route("GET", "/articles") { _ in failure.reply }
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: mock))
        _ = await model.load().result
        #expect(model.state == .failed(message: failure.message))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("the transport's download progress shows as a fraction while loading")
    func progress() async throws {
        let transport = ObservedTransport(reportingProgress: (completed: 512, expected: 2048))
        transport.mock.route("GET", "/articles") { _ in .never }
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: transport))
        model.load()
        try await waitUntil(model) { $0 == .loading(progress: 0.25) }
        model.cancel()
        try await transport.cancelled(1).value
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("cancelling a first load cancels its request and shows nothing again; a new load then works")
    func cancelsAFirstLoad() async throws {
        let transport = ObservedTransport()
        transport.mock.route("GET", "/articles", replies: [.never, .json(Self.articlesJSON)])
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: transport))

        let loading = model.load()
        try await transport.sent(1).value
        model.cancel()
        #expect(model.state == .idle)
        try await transport.cancelled(1).value
        #expect(await loading.result.isCancellation)
        #expect(model.state == .idle)

        #expect(try await model.load().value == Self.articles)
        #expect(model.state == .loaded(Self.articles))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("cancelling a refresh cancels its request and keeps the articles shown")
    func cancelsARefresh() async throws {
        let transport = ObservedTransport()
        transport.mock.route("GET", "/articles", replies: [.json(Self.articlesJSON), .never])
        let model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example", transport: transport))
        _ = try await model.load().value

        let refreshing = model.retry()
        #expect(model.state == .loading(progress: nil))
        try await transport.sent(2).value
        model.cancel()
        #expect(model.state == .loaded(Self.articles))
        try await transport.cancelled(2).value
        #expect(await refreshing.result.isCancellation)
        #expect(model.state == .loaded(Self.articles))
        model.cancel()  // nothing in flight: nothing changes
        #expect(model.state == .loaded(Self.articles))
    }

    /// Returns once the model's state satisfies `isReached`, waiting for its changes (no
    /// polling); throws if it has not after 10 s, so that a test fails instead of hanging.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private func waitUntil(
        _ model: ArticleListModel, _ isReached: (ArticleListModel.State) -> Bool
    ) async throws {
        while !isReached(model.state) {
            let (changed, resolver) = Promise<Void>.pending()
            withObservationTracking {
                _ = model.state
            } onChange: {
                resolver.fulfill(())
            }
            try await changed.timeout(60).value
        }
    }
}

extension Result {
    /// Whether this is the outcome of a cancelled promise.
    fileprivate var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
