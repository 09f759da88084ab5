/// How far a transfer has come: bytes sent (an upload) or received (a download) so far.
///
/// ```swift
/// api.download(route: .get(url), to: destination)
///     .onProgress { progress in print(progress.fractionCompleted ?? 0) }
/// ```
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// Which way the bytes go.
    public enum Direction: Sendable, Equatable {
        /// The request body, going out.
        case upload
        /// The response body, coming in.
        case download
    }

    /// Which way the bytes go.
    public var direction: Direction
    /// Bytes moved so far (for a resumed download, the bytes already on disk included).
    public var completedBytes: Int64
    /// The total, when known: nil when the server does not say or the body is compressed.
    public var expectedBytes: Int64?
    /// The attempt this report belongs to (1 for the first): a retry starts again from zero.
    public var attempt: Int

    /// A report.
    public init(direction: Direction, completedBytes: Int64, expectedBytes: Int64?, attempt: Int = 1) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
        self.attempt = attempt
    }

    /// `completedBytes / expectedBytes` between 0 and 1, or nil when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// Whether every expected byte has moved.
    public var isComplete: Bool {
        expectedBytes.map { completedBytes >= $0 } ?? false
    }

    /// `download 512/1024 bytes (attempt 1)`.
    public var description: String {
        "\(direction) \(completedBytes)/\(expectedBytes.map(String.init) ?? "?") bytes (attempt \(attempt))"
    }
}
