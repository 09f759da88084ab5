import Foundation
import Osprey

/// A cassette's HAR file, written whole the first time and then grown in place: each new entry
/// is appended after the last one, followed again by the archive's closing text. Saving after
/// every recorded exchange then costs that exchange, not the whole file again (a rewrite per
/// exchange made recording 10,000 exchanges quadratic).
///
/// The bytes are exactly those of `HAR.encoded()` for the same entries, so a file grown in place
/// reads, diffs and reviews like one written whole. When the file is not as this writer left it
/// (changed by someone else), it is written whole again.
struct HARFile {
    let url: URL
    /// The file's size and entry count as this writer left it; nil before its first write.
    private var written: (size: Int, entries: Int)?

    init(url: URL) {
        self.url = url
    }

    /// Whether the file holds the first `count` entries as this writer wrote them.
    func holds(_ count: Int) -> Bool { written?.entries == count }

    /// Writes an archive of `kept` followed by `added` to the file, which already holds
    /// `kept` when this writer wrote them (then only `added` is written).
    mutating func write(_ added: [HAR.Entry], after kept: [HAR.Entry]) throws {
        if let written, written.entries == kept.count, !kept.isEmpty, let frame = Self.frame,
            let size = try? append(added, after: written.size, frame: frame)
        {
            self.written = (size, kept.count + added.count)
            return
        }
        let whole = try HAR(entries: kept + added).encoded()
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try whole.write(to: url, options: .atomic)
        written = (whole.count, kept.count + added.count)
    }

    /// Appends `entries` to a file of `size` bytes that ends in the frame's suffix; the new size.
    private func append(_ entries: [HAR.Entry], after size: Int, frame: Frame) throws -> Int {
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        let end = try handle.seekToEnd()
        let tail = Int(end) - frame.suffix.count
        guard end == UInt64(size), tail > 0 else { throw CocoaError(.fileWriteUnknown) }
        try handle.seek(toOffset: UInt64(tail))
        guard try handle.read(upToCount: frame.suffix.count) == frame.suffix else {
            throw CocoaError(.fileWriteUnknown)
        }
        var added = Data()
        let encoder = Self.encoder
        for entry in entries {
            added.append(frame.separator)
            added.append(Self.indented(try encoder.encode(entry)))
        }
        added.append(frame.suffix)
        try handle.seek(toOffset: UInt64(tail))
        try handle.write(contentsOf: added)
        return tail + added.count
    }

    /// The archive's encoder, made once (encoding is all an append does besides writing).
    private static let encoder = HAR.encoder()

    /// What surrounds the entries in an encoded archive.
    struct Frame {
        /// Between two entries.
        var separator: Data
        /// From the last entry to the end of the file.
        var suffix: Data
    }

    /// The frame, found by encoding a two-entry archive and locating its entries in it; nil
    /// (every write whole) if the encoder ever lays out archives otherwise.
    static let frame: Frame? = {
        let encoder = HAR.encoder()
        let first = HAR.Entry(
            startedDateTime: "", time: 1, request: HAR.Request(method: "GET", url: "first"),
            response: HAR.Response(status: 200, content: HAR.Content(size: 0, mimeType: "")),
            timings: HAR.Timings(send: 0, wait: 0, receive: 0))
        var second = first
        second.request.url = "second"
        guard let whole = try? HAR(entries: [first, second]).encoded(),
            let one = try? indented(encoder.encode(first)),
            let two = try? indented(encoder.encode(second)),
            let start = whole.range(of: one), let end = whole.range(of: two),
            start.upperBound <= end.lowerBound
        else { return nil }
        return Frame(
            separator: Data(whole[start.upperBound..<end.lowerBound]), suffix: Data(whole[end.upperBound...]))
    }()

    /// An entry's encoding as it sits in an archive's entries: each line after the first
    /// indented three levels deeper (`log`, `entries`, the array), blank lines left blank.
    static func indented(_ encoded: Data) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count + encoded.count / 4)
        var previous: UInt8 = 0
        for byte in encoded {
            if previous == UInt8(ascii: "\n"), byte != UInt8(ascii: "\n") {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 6))
            }
            out.append(byte)
            previous = byte
        }
        return Data(out)
    }
}
