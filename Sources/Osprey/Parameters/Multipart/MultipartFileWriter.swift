import Foundation

/// Writes a multipart body to a temporary file, copying file parts a chunk at a time so that
/// memory stays flat whatever their size.
enum MultipartFileWriter {
    static let chunkSize = 1024 * 1024

    /// The size of a file part's file.
    /// - Throws: ``APIError/encodingFailed(reason:underlying:)`` if it is missing, a directory or
    ///   unreadable: the request fails before anything is sent.
    static func validatedSize(of url: URL) throws -> Int {
        var isDirectory: ObjCBool = false
        guard url.isFileURL, FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        else {
            throw APIError.encodingFailed(
                reason: "file part \(url.lastPathComponent.debugDescription) does not exist", underlying: nil)
        }
        guard !isDirectory.boolValue else {
            throw APIError.encodingFailed(
                reason: "file part \(url.lastPathComponent.debugDescription) is a directory", underlying: nil)
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw APIError.encodingFailed(
                reason: "file part \(url.lastPathComponent.debugDescription) is not readable", underlying: nil
            )
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Writes the body; returns the file and the boundary. The file is removed if writing fails.
    static func write(_ parts: [Part], boundary fixed: String?, in directory: URL) throws -> (URL, String) {
        let boundary = MultipartEncoder.boundary(for: parts, fixed: fixed)
        let file = directory.appendingPathComponent("osprey-multipart-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw APIError.encodingFailed(
                reason: "could not create a temporary body file in \(directory.path)", underlying: nil)
        }
        do {
            let output = try FileHandle(forWritingTo: file)
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
        while let chunk = try input.read(upToCount: chunkSize), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
