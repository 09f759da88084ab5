import Foundation
import Promises

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AbstractAPI {
    /// Downloads the response body to `destination`, streamed to disk as it arrives.
    ///
    /// The body goes to a private file beside the destination and is moved into place only when
    /// it is complete and its status was accepted (an error body never becomes the file). If an
    /// earlier download to the same destination was interrupted (cancelled, timed out, the
    /// connection lost), this one resumes it with `Range` and `If-Range`; the result is the
    /// same file as one full download.
    ///
    /// ```swift
    /// api.download(route: .get("https://example.com/big.iso"), to: file)
    ///     .onProgress { print($0.fractionCompleted ?? 0) }
    ///     .onSuccess { print("saved to \($0.path)") }
    /// ```
    /// - Parameters:
    ///   - route: The method and URL.
    ///   - parameters: Query and headers.
    ///   - destination: The file to create.
    ///   - overwrite: Whether an existing file may be replaced; refused by default.
    /// - Returns: A promise of `destination`, once the file is in place.
    public func download(
        route: Route, parameters: (any RequestParameters)? = nil, to destination: URL, overwrite: Bool = false
    ) -> Promise<URL> {
        if !overwrite, FileManager.default.fileExists(atPath: destination.path) {
            return Promise(
                error: APIError.fileFailed(
                    reason: "\(destination.path) exists; pass overwrite: true to replace it", underlying: nil,
                    context: nil),
                defaultQueue: responseQueue)
        }
        let plan = DownloadPlan(
            target: .file(destination), overwrite: overwrite,
            maximumBytes: configuration.maximumDownloadBytes)
        return perform(route: route, parameters: parameters, body: plan) { exchange, _ in
            try plan.complete(exchange)
        }
    }

    /// Downloads the response body into `folder`, under the name the server suggests in
    /// `Content-Disposition` (else the URL's last path component), made safe: whatever the
    /// server says (`../../x`, an absolute path, separators, NUL, an empty or very long name),
    /// the file lands inside `folder`. Resumes like ``download(route:parameters:to:overwrite:)``.
    /// - Parameters:
    ///   - route: The method and URL.
    ///   - parameters: Query and headers.
    ///   - folder: The folder to save into.
    ///   - overwrite: Whether an existing file may be replaced; refused by default.
    /// - Returns: A promise of the saved file's URL.
    public func download(
        route: Route, parameters: (any RequestParameters)? = nil, into folder: URL, overwrite: Bool = false
    ) -> Promise<URL> {
        let plan = DownloadPlan(
            target: .folder(folder), overwrite: overwrite, maximumBytes: configuration.maximumDownloadBytes)
        return perform(route: route, parameters: parameters, body: plan) { exchange, _ in
            try plan.complete(exchange)
        }
    }

    /// Removes what an interrupted download to `destination` left for resuming.
    public func removePartialDownload(at destination: URL) {
        PartialDownload(besideFile: destination).remove()
    }

    /// Removes what an interrupted download of `url` into `folder` left for resuming.
    public func removePartialDownload(of url: URL, into folder: URL) {
        PartialDownload(inFolder: folder, for: url.absoluteString).remove()
    }
}
