/// Reads a `text/event-stream` body as it arrives, in pieces cut anywhere, by the WHATWG HTML
/// standard's "Server-sent events" section (§9.2.6, interpreting an event stream): UTF-8, a
/// leading byte order mark dropped, lines ended by CRLF, LF or CR, comments (`:`) ignored,
/// fields `data`, `event`, `id` (ignored when it holds NUL) and `retry` (digits only), a line
/// without a colon a field with an empty value, and an event dispatched at each blank line
/// unless it has no data. What is left when the stream ends is discarded.
///
/// Bytes here are the server's: any of them must give events or nothing, never a crash, and
/// memory stays bounded: a line is cut at ``maximumLineBytes``, and an event whose data and
/// fields would pass ``maximumEventBytes`` stops the parser (``isOverLimit``) before it is kept.
package struct ServerSentEventParser: Sendable {
    /// The current line so far, when a piece ended inside it.
    private var line: [UInt8] = []
    /// The previous piece ended with CR: a LF starting the next one belongs to it.
    private var afterCR = false
    /// Whether the stream's first bytes were checked for a byte order mark.
    private var checkedBOM = false
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: [UInt8] = []
    private var retry: Int?
    /// The last event ID buffer, kept across events.
    package private(set) var lastEventID: String? {
        didSet { lastEventIDBytes = lastEventID?.utf8.count ?? 0 }
    }
    private var lastEventIDBytes = 0
    /// The last event ID as of the last blank line: what a reconnection sends.
    package private(set) var dispatchedLastEventID: String?
    /// An event passed ``maximumEventBytes``: the parser keeps nothing more and ignores the rest
    /// of the stream, which should be failed.
    package private(set) var isOverLimit = false
    /// The reconnection time the stream asked for, in milliseconds (`retry:`).
    package private(set) var reconnectionTime: Int?
    /// The longest line kept (1 MiB): a longer one is cut, its rest ignored, so a server cannot
    /// grow one line without bound.
    package static let maximumLineBytes = 1 << 20
    /// The largest event kept (4 MiB of data, event type and id): lines are capped, but a server
    /// could otherwise send `data:` lines without end and grow one event without bound.
    package static let maximumEventBytes = 4 << 20

    /// The bytes the event being read would carry: its data (with the LFs joining its lines),
    /// its type and the last event ID.
    var pendingEventBytes: Int { data.count + eventType.count + lastEventIDBytes }

    /// - Parameter lastEventID: The last event ID buffer to start with: the one the previous
    ///   connection left, which the standard keeps until an `id:` field changes it.
    package init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
        dispatchedLastEventID = lastEventID
        lastEventIDBytes = lastEventID?.utf8.count ?? 0
    }

    /// Reads the next piece of the body; returns the events it completed, in order.
    package mutating func feed(_ bytes: some Collection<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        feed(bytes) { events.append($0) }
        return events
    }

    /// Reads the next piece of the body, handing each event it completes to `emit`.
    package mutating func feed(_ bytes: some Collection<UInt8>, emit: (ServerSentEvent) -> Void) {
        let scanned: Void? = bytes.withContiguousStorageIfAvailable {
            scan(UnsafeRawBufferPointer($0), emit: emit)
        }
        if scanned == nil { Array(bytes).withUnsafeBytes { scan($0, emit: emit) } }
    }

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, emit: (ServerSentEvent) -> Void) {
        if isOverLimit { return }
        var start = 0
        let count = bytes.count
        if !checkedBOM {
            // The BOM may itself arrive cut: wait for three bytes (or a line end) to decide.
            line.append(contentsOf: bytes)
            if line.count < 3, !line.contains(0x0A), !line.contains(0x0D) { return }
            checkedBOM = true
            let pending = line
            line = []
            let body = pending.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(pending.dropFirst(3)) : pending
            return body.withUnsafeBytes { scan($0, emit: emit) }
        }
        if afterCR, count > 0 {
            afterCR = false
            if bytes[0] == 0x0A { start = 1 }
        }
        var index = start
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                if line.isEmpty {
                    process(UnsafeRawBufferPointer(rebasing: bytes[start..<index]), emit: emit)
                } else {
                    appendToLine(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                    let whole = line
                    line = []
                    whole.withUnsafeBytes { process($0, emit: emit) }
                }
                if isOverLimit { return }
                if byte == 0x0D {
                    if index + 1 < count {
                        if bytes[index + 1] == 0x0A { index += 1 }
                    } else {
                        afterCR = true
                    }
                }
                index += 1
                start = index
            } else {
                index += 1
            }
        }
        if start < count { appendToLine(UnsafeRawBufferPointer(rebasing: bytes[start..<count])) }
    }

    private mutating func appendToLine(_ bytes: UnsafeRawBufferPointer) {
        let room = Self.maximumLineBytes - line.count
        guard room > 0 else { return }
        line.append(contentsOf: bytes.prefix(room))
    }

    /// One whole line, without its end.
    private mutating func process(_ line: UnsafeRawBufferPointer, emit: (ServerSentEvent) -> Void) {
        guard !line.isEmpty else { return dispatch(emit) }
        if line[0] == 0x3A { return }  // a comment
        let colon = line.firstIndex(of: 0x3A)
        let field = UnsafeRawBufferPointer(rebasing: line[..<(colon ?? line.count)])
        var valueStart = colon.map { $0 + 1 } ?? line.count
        if valueStart < line.count, line[valueStart] == 0x20 { valueStart += 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        if field.elementsEqual("data".utf8) {
            let added = (hasData ? 1 : 0) + value.count
            guard fits(pendingEventBytes + added) else { return }
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        } else if field.elementsEqual("event".utf8) {
            guard fits(pendingEventBytes - eventType.count + value.count) else { return }
            eventType = Array(value)
        } else if field.elementsEqual("id".utf8) {
            guard !value.contains(0), fits(pendingEventBytes - lastEventIDBytes + value.count) else { return }
            lastEventID = String(decoding: value, as: UTF8.self)
        } else if field.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.count <= 10, value.allSatisfy({ (0x30...0x39).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                reconnectionTime = milliseconds
                retry = milliseconds
            }
        }
    }

    /// Whether an event of `size` bytes may be kept; if not, stops the parser and lets go of
    /// what it held, before anything more is kept.
    private mutating func fits(_ size: Int) -> Bool {
        guard size > Self.maximumEventBytes else { return true }
        isOverLimit = true
        data = []
        eventType = []
        line = []
        return false
    }

    private mutating func dispatch(_ emit: (ServerSentEvent) -> Void) {
        // The standard sets the source's last event ID at every dispatch, one without data
        // (`id: 42` and a blank line) included; a block cut off before its blank line sets none.
        dispatchedLastEventID = lastEventID
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType.removeAll(keepingCapacity: true)
            retry = nil
        }
        guard hasData else { return }
        emit(
            ServerSentEvent(
                id: lastEventID,
                event: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
                data: String(decoding: data, as: UTF8.self), retry: retry))
    }
}
