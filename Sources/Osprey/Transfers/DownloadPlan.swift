import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `download` call: resumes from what an earlier one left, writes the body to a private
/// partial file as it arrives, and moves it into place once complete and valid.
///
/// Per attempt: ``prepare(_:then:)`` (on the request queue) takes the partial file's lease and
/// asks for the missing bytes when a resumable partial file exists; the transport then calls the
/// ``DownloadSink`` methods; the pipeline's decode step calls ``complete(_:)``, and the end of the
/// request ``requestEnded()``.
///
/// A partial file is only resumed when its bytes are of the same representation: the record
/// keeps the strong `ETag` (or `Last-Modified`) of the response that started it, a `206` must
/// carry the same one (a server or proxy that ignores `If-Range` would otherwise splice two
/// versions), and a body the server sent with a `Content-Encoding` (though the download asked for
/// `identity`) is saved decoded and never resumed: its offsets are of the encoded bytes.
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
        /// The URL this attempt asked for (before redirects, without its query): what a resume
        /// must match.
        var askedURL = ""
        /// The partial file whose lease this download holds (see ``PartialFileLeases``).
        var lease: String?
        /// Whether the request ended (its promise settled): the lease goes once the file is closed.
        var requestEnded = false
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

    /// Gives the attempt's request to `send` once this download holds its partial file's lease
    /// (an earlier download to the same place may still be writing its last bytes). `send` runs
    /// at once when the file is free, else later on the thread that freed it (`waited` is then
    /// true); never once the request has ended.
    func prepare(_ request: URLRequest, then send: @escaping @Sendable (URLRequest, _ waited: Bool) -> Void) {
        let partial =
            switch target {
            case .file(let destination): PartialDownload(besideFile: destination)
            case .folder(let folder):
                PartialDownload(inFolder: folder, for: request.url?.absoluteString ?? "")
            }
        let path = partial.dataURL.path
        let (holdsIt, other) = state.withLock { state -> (Bool, String?) in
            guard state.lease != path else { return (true, nil) }
            defer { state.lease = nil }
            return (false, state.lease)
        }
        // A retry, or a restart from zero, of this download.
        if holdsIt { return send(resumingRequest(request, from: partial), false) }
        // An adapter moved a folder download to another URL between attempts.
        if let other { PartialFileLeases.release(other) }
        let returned = Locked(false)
        PartialFileLeases.acquire(path) { [self] in
            let ended = state.withLock { state -> Bool in
                if !state.requestEnded { state.lease = path }
                return state.requestEnded
            }
            guard !ended else { return PartialFileLeases.release(path) }
            send(resumingRequest(request, from: partial), returned.withLock { $0 })
        }
        returned.withLock { $0 = true }
    }

    /// The request asking for the bytes after those already on disk (`Range`), only if they are
    /// still the same representation (`If-Range`); otherwise for everything.
    private func resumingRequest(_ request: URLRequest, from partial: PartialDownload) -> URLRequest {
        var request = request
        let url = PartialDownload.recordedURL(request.url)
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

    /// The request ended: the partial file's lease goes as soon as the file is closed (at once
    /// unless a transport is still writing its last bytes).
    func requestEnded() {
        let lease = state.withLock { state -> String? in
            state.requestEnded = true
            guard state.handle == nil else { return nil }
            defer { state.lease = nil }
            return state.lease
        }
        if let lease { PartialFileLeases.release(lease) }
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
                // RFC 9110 §13.1.5, §14.4: the rest must be of the same representation.
                guard let validator = state.record?.validator, Self.validator(of: response) == validator,
                    Self.isIdentity(response)
                else {
                    partial.remove()
                    throw DownloadRestart(reason: "the server sent the rest of another representation")
                }
                state.handle = try DownloadFiles.open(partial.dataURL, keeping: state.startOffset)
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
            state.handle = try DownloadFiles.open(partial.dataURL, keeping: 0)
            let identity = Self.isIdentity(response)
            let record = PartialDownload.Record(
                url: state.askedURL,
                // No validator, no resume: an encoded body is saved decoded.
                validator: identity ? Self.validator(of: response) : nil,
                totalLength: identity ? Self.contentLength(of: response) : nil,
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
        try closeFile { state in
            if !state.pending.isEmpty { try state.handle?.write(contentsOf: state.pending) }
            try state.handle?.close()
        }
    }

    func abandon() {
        closeFile { state in
            // What arrived is kept for a resume: it is all part of the body, in order.
            if !state.pending.isEmpty { try? state.handle?.write(contentsOf: state.pending) }
            try? state.handle?.close()
        }
    }

    /// Runs `close` on the open file, forgets it, and hands the lease on if the request ended.
    private func closeFile(_ close: (inout State) throws -> Void) rethrows {
        let lease = try state.withLock { state -> String? in
            defer {
                state.handle = nil
                state.pending = Data()
            }
            try close(&state)
            guard state.requestEnded else { return nil }
            defer { state.lease = nil }
            return state.lease
        }
        if let lease { PartialFileLeases.release(lease) }
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
        try DownloadFiles.move(partial.dataURL, to: destination, overwrite: overwrite)
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

    // MARK: Response headers

    /// The strong `ETag`, else `Last-Modified`: what `If-Range` may carry (RFC 9110 §13.1.5).
    private static func validator(of response: HTTPURLResponse) -> String? {
        if let tag = response.value(forHTTPHeaderField: "ETag"), !tag.hasPrefix("W/") { return tag }
        return response.value(forHTTPHeaderField: "Last-Modified")
    }

    /// Whether the body is sent as is (no content coding).
    private static func isIdentity(_ response: HTTPURLResponse) -> Bool {
        guard let coding = response.value(forHTTPHeaderField: "Content-Encoding") else { return true }
        return coding.trimmingCharacters(in: .whitespaces).lowercased() == "identity"
    }

    private static func contentLength(of response: HTTPURLResponse) -> Int64? {
        response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
    }
}

/// The partial file cannot be continued: start the download again from zero, at once.
struct DownloadRestart: Error, CustomStringConvertible {
    let reason: String

    var description: String { "the download restarts from zero: \(reason)" }
}
