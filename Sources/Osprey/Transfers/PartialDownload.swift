import Foundation

/// What Osprey keeps beside an interrupted download so that the next `download` to the same
/// place can resume: the bytes so far (in a private file) and, in a small JSON file next to it,
/// what they are part of.
struct PartialDownload {
    /// What is known of the body being downloaded.
    struct Record: Codable, Equatable {
        /// The URL the download was asked for, without its query (a resume only continues the
        /// same one; see ``recordedURL(_:)``).
        var url: String
        /// The strong `ETag`, or else the `Last-Modified` date, for `If-Range`.
        var validator: String?
        /// The whole body's length, when known.
        var totalLength: Int64?
        /// The name the server suggested, for downloads into a folder.
        var suggestedFilename: String?
    }

    /// The bytes so far.
    let dataURL: URL
    /// The record.
    let recordURL: URL

    /// The partial download kept for `destination`: `.name.osprey-download` beside it.
    init(besideFile destination: URL) {
        let folder = destination.deletingLastPathComponent()
        let base = "." + destination.lastPathComponent + ".osprey-download"
        dataURL = folder.appendingPathComponent(base)
        recordURL = folder.appendingPathComponent(base + ".json")
    }

    /// The partial download kept in `folder` for a download of `url` whose name the server gives.
    init(inFolder folder: URL, for url: String) {
        let base = ".osprey-download-" + Self.fingerprint(url)
        dataURL = folder.appendingPathComponent(base)
        recordURL = folder.appendingPathComponent(base + ".json")
    }

    /// The record, if there is one that can be read.
    func readRecord() -> Record? {
        guard let data = try? Data(contentsOf: recordURL) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Replaces the record, atomically, with a file only its owner can read (0600, as the bytes):
    /// it names what is being downloaded.
    func write(_ record: Record) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(record)
        let temporary = recordURL.deletingLastPathComponent()
            .appendingPathComponent(".\(recordURL.lastPathComponent).\(UUID().uuidString)")
        let descriptor = temporary.withUnsafeFileSystemRepresentation { path in
            open(path!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
            guard rename(temporary.path, recordURL.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// What a record keeps of a download's URL: scheme, host, port and path. A query may hold a
    /// signature or a token, and a resume does not need it: `If-Range` and the validator check
    /// make sure the bytes continue the same representation.
    static func recordedURL(_ url: URL?) -> String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return ""
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? ""
    }

    /// The size of the bytes so far (0 when there are none).
    var size: Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: dataURL.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Removes both files (missing ones are fine).
    func remove() {
        try? FileManager.default.removeItem(at: dataURL)
        try? FileManager.default.removeItem(at: recordURL)
    }

    /// A stable 64-bit FNV-1a hash of `text`, in hex: names the partial files of a folder download.
    static func fingerprint(_ text: String) -> String {
        String(FNV1a.hash(text.utf8), radix: 16)
    }
}
