import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes a multipart body to a temporary file, copying file parts a chunk at a time so that
/// memory stays flat whatever their size.
enum MultipartFileWriter {
    static let chunkSize = 1024 * 1024

    /// The size of a file part's file.
    /// - Throws: ``APIError/encodingFailed(reason:underlying:)`` if it is missing, a directory,
    ///   not a regular file (a FIFO or `/dev/zero` could block or never end) or unreadable: the
    ///   request fails before anything is sent.
    static func validatedSize(of url: URL, role: String = "file part") throws -> Int {
        let name = url.lastPathComponent.debugDescription
        func failure(_ problem: String, _ underlying: (any Error)? = nil) -> APIError {
            .encodingFailed(reason: "\(role) \(name) \(problem)", underlying: underlying)
        }
        guard url.isFileURL, let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        else { throw failure("does not exist") }
        switch attributes[.type] as? FileAttributeType {
        case .typeRegular?: break
        case .typeDirectory?: throw failure("is a directory")
        default: throw failure("is not a regular file")
        }
        // Opening is the only true test: permission bits, ACLs and the process's privileges all
        // take part, and root passes access checks that reading would still fail.
        do {
            try FileHandle(forReadingFrom: url).close()
        } catch {
            throw failure("is not readable", error)
        }
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Writes the body; returns the file and the boundary. The file is removed if writing fails.
    static func write(_ parts: [Part], boundary fixed: String?, in directory: URL) throws -> (URL, String) {
        let boundary = try MultipartEncoder.boundary(for: parts, fixed: fixed)
        let file = directory.appendingPathComponent("osprey-multipart-\(UUID().uuidString)")
        // Created exclusively (never through a planted file or link) and readable by this user
        // only: the body holds the uploaded documents, in a folder other users can list.
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw APIError.encodingFailed(
                reason: "could not create a temporary body file in \(directory.path): \(reason)",
                underlying: nil)
        }
        do {
            let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            defer { try? output.close() }
            for part in parts {
                try output.write(contentsOf: Data("--\(boundary)\r\n".utf8))
                try output.write(contentsOf: Data(MultipartEncoder.headerLines(for: part).utf8))
                if let url = part.fileURL {
                    try copy(url, to: output)
                } else {
                    try output.write(contentsOf: part.data)
                }
                try output.write(contentsOf: Data("\r\n".utf8))
            }
            try output.write(contentsOf: Data("--\(boundary)--\r\n".utf8))
            return (file, boundary)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error as? APIError
                ?? .encodingFailed(reason: "could not write the multipart body", underlying: error)
        }
    }

    private static func copy(_ url: URL, to output: FileHandle) throws {
        let input = try FileHandle(forReadingFrom: url)
        defer { try? input.close() }
        #if os(Linux)
            // The kernel copies without the bytes passing through this process: no user-space
            // buffer and no second copy, which the upload benchmark shows.
            while true {
                let copied = sendfile(output.fileDescriptor, input.fileDescriptor, nil, chunkSize)
                if copied == 0 { return }
                if copied < 0 {
                    if errno == EINTR { continue }
                    // Not supported between these file systems (or by this kernel): copy by hand
                    // from where the kernel stopped; both descriptors' offsets have moved with it.
                    break
                }
            }
        #endif
        while let chunk = try input.read(upToCount: chunkSize), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
