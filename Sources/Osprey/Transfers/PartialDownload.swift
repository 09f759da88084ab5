import Foundation

/// What Osprey keeps beside an interrupted download so that the next `download` to the same
/// place can resume: the bytes so far (in a private file) and, in a small JSON file next to it,
/// what they are part of.
struct PartialDownload {
    /// What is known of the body being downloaded.
    struct Record: Codable, Equatable {
        /// The URL the download was asked for (a resume only continues the same one).
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

    /// Replaces the record.
    func write(_ record: Record) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(record).write(to: recordURL, options: .atomic)
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
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
