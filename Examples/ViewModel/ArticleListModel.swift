import Observation
import Osprey

/// Loads the articles of a list screen and says what it shows: nothing yet, a spinner (a
/// progress bar when the server says how long the list is), the articles, or an explanation
/// with a retry button. Loads can be cancelled, which cancels their request.
///
/// ```swift
/// struct ArticlesView: View {
///     @State private var model = ArticleListModel(api: ArticlesAPI(baseURL: "https://news.example.com"))
///
///     var body: some View {
///         Group {
///             switch model.state {
///             case .idle, .loading(nil): ProgressView()
///             case .loading(let fraction?): ProgressView(value: fraction)
///             case .loaded(let articles): List(articles) { Text($0.title) }
///             case .failed(let message): VStack { Text(message); Button("Retry") { model.retry() } }
///             }
///         }
///         .onAppear { model.load() }
///         .onDisappear { model.cancel() }
///     }
/// }
/// ```
///
/// Every change happens on the main actor. A load that was cancelled or replaced never changes
/// the state afterwards, whenever its outcome arrives.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class ArticleListModel {
    /// What the screen shows.
    public private(set) var state: State = .idle

    @ObservationIgnored private let api: ArticlesAPI
    @ObservationIgnored private var current: Load?
    /// Numbers the loads, so that a handler can tell whether its load is still the current one.
    @ObservationIgnored private var loadCount = 0

    /// The load in flight.
    private struct Load {
        var number: Int
        /// The API's request, cancelled by `cancel()`.
        var request: Promise<[Article]>
        /// Settled once the state shows the request's outcome.
        var settled: Promise<[Article]>
        /// What the screen showed before, shown again if the load is cancelled.
        var previousState: State
    }

    /// A model that loads through `api`.
    /// - Parameter api: The feed's client.
    public init(api: ArticlesAPI) {
        self.api = api
    }

    /// Loads the articles unless they are loaded or loading: for when the screen appears.
    /// - Returns: A promise settled once the state shows the outcome (cancelled if the load
    ///   is); the state says how it went, so most callers ignore it.
    @discardableResult
    public func load() -> Promise<[Article]> {
        if let current { return current.settled }
        if case .loaded(let articles) = state { return Promise(value: articles) }
        return start()
    }

    /// Loads the articles again, whatever the screen shows: the retry button after a failure,
    /// or pull to refresh. A load in flight is joined rather than started twice.
    /// - Returns: A promise settled once the state shows the outcome.
    @discardableResult
    public func retry() -> Promise<[Article]> {
        current?.settled ?? start()
    }

    /// Cancels the load in flight, and its request, and shows what was shown before it started
    /// (the previous articles during a refresh). Does nothing when no load is in flight.
    public func cancel() {
        guard let load = current else { return }
        current = nil
        state = load.previousState
        load.request.cancel()
    }

    private func start() -> Promise<[Article]> {
        loadCount += 1
        let number = loadCount
        let previousState = state
        state = .loading(progress: nil)
        let request = api.articles()
        // `weak`: a request nobody cancelled must not keep a screen's model alive.
        let settled =
            request
            .onProgress(in: .main) { @MainActor [weak self] progress in
                guard progress.direction == .download else { return }
                self?.update(number, to: .loading(progress: progress.fractionCompleted), finished: false)
            }
            .onSuccess(in: .main) { @MainActor [weak self] articles in
                self?.update(number, to: .loaded(articles), finished: true)
            }
            .onError(in: .main) { @MainActor [weak self] error in
                self?.update(number, to: .failed(message: Self.message(for: error)), finished: true)
            }
        current = Load(number: number, request: request, settled: settled, previousState: previousState)
        return settled
    }

    /// Shows `state` if load `number` is still the current one.
    private func update(_ number: Int, to state: State, finished: Bool) {
        guard current?.number == number else { return }
        self.state = state
        if finished { current = nil }
    }
}
