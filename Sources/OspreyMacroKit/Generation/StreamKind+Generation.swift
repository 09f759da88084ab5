extension StreamKind {
    /// The `AbstractAPI` method that makes this stream from a `RequestBuilder`.
    var makingMethod: String {
        switch self {
        case .response: "_stream"
        case .events: "_events"
        case .decodedEvents: "_decodedEvents"
        }
    }

    /// What a mock's requirement that cannot throw does when the test set no handler for
    /// `requirement` (such as `feed()`): it returns a stream that fails with
    /// `MockError.notMocked` when read, as a Promise would.
    func unmockedStatements(_ requirement: String) -> [String] {
        let error = "Osprey.MockError.notMocked(\(SourceWriter.literal(requirement)))"
        switch self {
        case .response: return ["return Osprey.ResponseStream.scripted([], error: \(error))"]
        case .events: return ["return Osprey.ServerSentEvents.scripted([], error: \(error))"]
        case .decodedEvents: return ["return .scripted([], error: \(error))"]
        }
    }
}
