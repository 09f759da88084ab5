import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request` and returns the body and response, for tests that use URLSession directly.
    ///
    /// Built on `dataTask(with:completionHandler:)` rather than `data(for:)`, whose cancellation
    /// can deadlock on Linux with Swift 6.3.
    /// - Throws: The transport error, or `URLError(.badServerResponse)` for a non-HTTP response.
    package func fetch(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response = response as? HTTPURLResponse {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
    }
}
