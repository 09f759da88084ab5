import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct FetchFailure: Error {
    var message: String
}

extension URLSession {
    /// Sends a request with `dataTask` (not `data(for:)`, which can deadlock on cancel on Linux).
    func fetch(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response = response as? HTTPURLResponse {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: FetchFailure(message: "no HTTP response"))
                }
            }.resume()
        }
    }

    /// A fresh ephemeral session, so that tests share no connections or cookies.
    static func makeEphemeral() -> URLSession {
        URLSession(configuration: .ephemeral)
    }
}
