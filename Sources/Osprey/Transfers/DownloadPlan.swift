import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `download` call: resumes from what an earlier one left, writes the body to a private
/// partial file as it arrives, and moves it into place once complete and valid.
///
/// Per attempt: ``prepare(_:)`` (on the request queue) asks for the missing bytes when a
/// resumable partial file exists; the transport then calls the ``DownloadSink`` methods; the
/// pipeline's decode step calls ``complete(_:)``.
final class DownloadPlan: DownloadSink {
    /// Where the file goes.
    enum Target: Sendable {
        /// This exact file.
        case file(URL)
        /// This folder, under the name the server suggests.
        case folder(URL)
    }

    private struct State {
        var partial: PartialDownload?
        var record: PartialDownload.Record?
        var startOffset: Int64 = 0
        var handle: FileHandle?
        /// Bytes not yet written: pieces arrive 16 KiB at a time, and fewer, larger writes are
        /// cheaper for the delegate queue that makes them.
        var pending = Data()
        /// The URL this attempt asked for (before redirects): what a resume must match.
        var askedURL = ""
    }

    let target: Target
    let overwrite: Bool
    let maximumBytes: Int64?
    private let state = Locked(State())

    init(target: Target, overwrite: Bool, maximumBytes: Int64?) {
        self.target = target
        self.overwrite = overwrite
        self.maximumBytes = maximumBytes
    }

    var startOffset: Int64 { state.withLock { $0.startOffset } }

    // MARK: Before each attempt

    /// The attempt's request: it asks for the bytes after those already on disk (`Range`),
    /// only if they are still the same representation (`If-Range`); otherwise for everything.
    func prepare(_ request: URLRequest) -> URLRequest {
        var request = request
        let url = request.url?.absoluteString ?? ""
        let partial =
            switch target {
            case .file(let destination): PartialDownload(besideFile: destination)
            case .folder(let folder): PartialDownload(inFolder: folder, for: url)
            }
        // Byte offsets only mean something in the unencoded representation.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        var offset: Int64 = 0
        let record = partial.readRecord()
        let size = partial.size
        if let record, record.url == url, let validator = record.validator, size > 0,
            record.totalLength.map({ size < $0 }) ?? true
        {
            offset = size
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            request.setValue(validator, forHTTPHeaderField: "If-Range")
        } else {
            partial.remove()
        }
        state.withLock { state in
            state.partial = partial
            state.record = offset > 0 ? record : nil
            state.startOffset = offset
            state.askedURL = url
        }
        return request
    }

    // MARK: DownloadSink

    func begin(_ response: HTTPURLResponse) throws -> Bool {
        try state.withLock { state in
            guard let partial = state.partial else { return false }
            let status = response.statusCode
            if status == 206 {
                let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)
                let known = state.record?.totalLength
                guard state.startOffset > 0, let range, range.first == state.startOffset,
                    known == nil || range.complete == nil || range.complete == known
                else {
                    partial.remove()
                    throw DownloadRestart(reason: "the server answered another range than the one asked for")
                }
                state.handle = try Self.open(partial.dataURL, keeping: state.startOffset)
                if state.record?.totalLength == nil, let complete = range.complete {
                    state.record?.totalLength = complete
                    if let record = state.record { try partial.write(record) }
                }
                return true
            }
            if status == 416, state.startOffset > 0 {
                partial.remove()
                throw DownloadRestart(reason: "the server cannot send the rest (416)")
            }
            guard (200..<300).contains(status) else { return false }
            // A whole body: a first download, or the validator changed, or ranges are ignored.
            state.startOffset = 0
            state.handle = try Self.open(partial.dataURL, keeping: 0)
            let record = PartialDownload.Record(
                url: state.askedURL,
                validator: Self.validator(of: response),
                totalLength: Self.identityLength(of: response),
                suggestedFilename: response.value(forHTTPHeaderField: "Content-Disposition")
                    .flatMap(ContentDisposition.filename(in:)))
            state.record = record
            try partial.write(record)
            return true
        }
    }

    /// Writes are gathered up to this many bytes.
    static let writeSize = 256 * 1024

    func write(_ data: Data) throws {
        try state.withLock { state in
            if state.pending.isEmpty, data.count >= Self.writeSize {
                try state.handle?.write(contentsOf: data)
                return
            }
            state.pending.append(data)
            guard state.pending.count >= Self.writeSize else { return }
            defer { state.pending.removeAll(keepingCapacity: true) }
            try state.handle?.write(contentsOf: state.pending)
        }
    }

    func end() throws {
        try state.withLock { state in
            defer {
                state.handle = nil
                state.pending = Data()
            }
            if !state.pending.isEmpty { try state.handle?.write(contentsOf: state.pending) }
            try state.handle?.close()
        }
    }

    func abandon() {
        state.withLock { state in
            // What arrived is kept for a resume: it is all part of the body, in order.
            if !state.pending.isEmpty { try? state.handle?.write(contentsOf: state.pending) }
            try? state.handle?.close()
            state.handle = nil
            state.pending = Data()
        }
    }

    // MARK: After the body

    /// Moves the complete body into place; the partial files are gone afterwards.
    func complete(_ exchange: TransportResponse) throws -> URL {
        let (partial, record) = state.withLock { ($0.partial, $0.record) }
        guard exchange.bodyWentToSink, let partial else {
            throw APIError.fileFailed(
                reason: "the response has no body to save", underlying: nil, context: nil)
        }
        if let total = record?.totalLength, partial.size != total {
            throw APIError.fileFailed(
                reason: "the file has \(partial.size) bytes, not the \(total) announced", underlying: nil,
                context: nil)
        }
        // Whatever happens now, the complete body has nothing left to resume.
        defer { partial.remove() }
        let destination = try destinationURL(record: record, response: exchange)
        try Self.move(partial.dataURL, to: destination, overwrite: overwrite)
        return destination
    }

    private func destinationURL(record: PartialDownload.Record?, response: TransportResponse) throws -> URL {
        switch target {
        case .file(let url):
            return url
        case .folder(let folder):
            let fromURL = response.request.url?.lastPathComponent ?? ""
            let name = ContentDisposition.safeFilename(
                record?.suggestedFilename ?? fromURL,
                fallback: ContentDisposition.safeFilename(fromURL, fallback: "download"))
            let destination = folder.appendingPathComponent(name)
            // Belt and braces: the name has no separators, so this always holds.
            guard
                destination.standardizedFileURL.deletingLastPathComponent().path
                    == folder.standardizedFileURL.path
            else {
                throw APIError.fileFailed(
                    reason: "the suggested name leaves the folder", underlying: nil, context: nil)
            }
            return destination
        }
    }

    // MARK: Files

    /// Opens (creating it private to the user) the partial file, cut to `length` bytes, for
    /// writing after them.
    private static func open(_ url: URL, keeping length: Int64) throws -> FileHandle {
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
    private static func move(_ source: URL, to destination: URL, overwrite: Bool) throws {
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

    /// The strong `ETag`, else `Last-Modified`: what `If-Range` may carry (RFC 9110 §13.1.5).
    private static func validator(of response: HTTPURLResponse) -> String? {
        if let tag = response.value(forHTTPHeaderField: "ETag"), !tag.hasPrefix("W/") { return tag }
        return response.value(forHTTPHeaderField: "Last-Modified")
    }

    /// The body's length when it is sent as is (no content coding).
    private static func identityLength(of response: HTTPURLResponse) -> Int64? {
        if let coding = response.value(forHTTPHeaderField: "Content-Encoding"), coding != "identity" {
            return nil
        }
        return response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
    }
}

/// The partial file cannot be continued: start the download again from zero, at once.
struct DownloadRestart: Error, CustomStringConvertible {
    let reason: String

    var description: String { "the download restarts from zero: \(reason)" }
}

/// The error of a failed system call.
private func systemError(_ code: Int32) -> any Error {
    POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
}
