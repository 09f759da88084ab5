import Foundation

/// Writes a ``BodyStream`` to a private temporary file, for a transport that can only upload a
/// body it can read again from the start (URLSession): memory stays bounded, and the request
/// goes out once the whole body is on disk (on Linux with a `Content-Length` up to 8 MiB,
/// chunked beyond: see `Exchange.carrying(_:in:)`).
enum BodyStreamSpool {
    /// The file holding the body's bytes; the caller removes it.
    /// - Throws: What stopped the sequence, a length it did not keep, ``BodyStreamConsumed``, or
    ///   a file error.
    static func write(_ stream: BodyStream) async throws -> URL {
        guard let pieces = stream.makePieces() else { throw BodyStreamConsumed() }
        let length = stream.length
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "osprey-body-\(UUID().uuidString)")
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            open(path!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            var written: Int64 = 0
            for try await piece in pieces {
                // An overrun fails at once: the surplus is never written (nor sent).
                if let length, written + Int64(piece.count) > length {
                    throw BodyStreamLengthMismatch(declared: length, produced: written + Int64(piece.count))
                }
                try handle.write(contentsOf: piece)
                written += Int64(piece.count)
            }
            try handle.close()
            if let length, written != length {
                throw BodyStreamLengthMismatch(declared: length, produced: written)
            }
            return url
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }
}
