import Foundation

/// The file work of a download: opening its partial file privately, and moving the complete
/// file into place.
enum DownloadFiles {
    /// Opens (creating it private to the user) the partial file, cut to `length` bytes, for
    /// writing after them.
    static func open(_ url: URL, keeping length: Int64) throws -> FileHandle {
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            Foundation.open(path!, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard descriptor >= 0 else { throw systemError(errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw systemError(errno) }
        try handle.seekToEnd()
        return handle
    }

    /// Moves the file into place: replacing what is there only when allowed, atomically either way.
    static func move(_ source: URL, to destination: URL, overwrite: Bool) throws {
        let result = source.withUnsafeFileSystemRepresentation { from in
            destination.withUnsafeFileSystemRepresentation { to in
                // link(2) refuses an existing destination; rename(2) replaces it atomically.
                overwrite ? rename(from!, to!) : link(from!, to!)
            }
        }
        guard result == 0 else {
            let code = errno
            if code == EEXIST {
                throw APIError.fileFailed(
                    reason: "\(destination.path) exists; pass overwrite: true to replace it", underlying: nil,
                    context: nil)
            }
            throw APIError.fileFailed(
                reason: "could not move the download to \(destination.path)",
                underlying: systemError(code), context: nil)
        }
        if !overwrite { try? FileManager.default.removeItem(at: source) }
    }

    /// The error of a failed system call.
    static func systemError(_ code: Int32) -> any Error {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
