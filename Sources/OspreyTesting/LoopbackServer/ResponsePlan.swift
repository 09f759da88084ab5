import Foundation

/// The bytes of a response laid out before sending: the head, the body cut into the segments its
/// framing and faults require, and the trailer.
struct ResponsePlan {
    struct Segment {
        var bytes: ArraySlice<UInt8>
        /// Seconds to wait before sending this segment.
        var pauseBefore: TimeInterval
    }

    private(set) var head: [UInt8] = []
    private(set) var segments: [Segment] = []
    private(set) var trailer: [UInt8] = []
    /// The connection is closed after the segments, skipping the trailer (a truncated body).
    private(set) var closesEarly = false
    /// The connection may serve another request afterwards.
    private(set) var keepsConnection = true
    private var isChunked = false

    init(response: LoopbackServer.Response, method: String, keepAlive: Bool) {
        let faults = response.faults
        let hasBody =
            method != "HEAD" && response.status >= 200 && response.status != 204 && response.status != 304
        let payload = hasBody ? [UInt8](response.body) : []
        var headers = response.headers
        let declaresLength = headers.firstValue(named: "Content-Length") != nil

        switch response.framing {
        case .contentLength where faults.endless == nil:
            if !declaresLength, response.status >= 200, response.status != 204 {
                headers.append(.init("Content-Length", String(response.body.count + faults.overstatedLength)))
            }
        case .contentLength, .chunked:
            isChunked = hasBody
            if hasBody { headers.append(.init("Transfer-Encoding", "chunked")) }
        case .closeDelimited:
            break
        }

        let mustClose =
            !keepAlive || response.framing == .closeDelimited || faults.overstatedLength > 0
            || faults.closeAfterBodyBytes != nil || faults.endless != nil
        if mustClose, headers.firstValue(named: "Connection") == nil {
            headers.append(.init("Connection", "close"))
        }
        keepsConnection = !mustClose

        let reason = response.reason ?? LoopbackServer.Response.standardReason(for: response.status)
        var text = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        for line in response.rawHeaderLines { text += "\(line)\r\n" }
        text += "\r\n"
        head = Array(text.utf8)

        let cutoff = min(faults.closeAfterBodyBytes ?? payload.count, payload.count)
        closesEarly = faults.closeAfterBodyBytes.map { $0 < payload.count } ?? false
        segments = Self.cut(payload[0..<cutoff], framing: response.framing, faults: faults)
        if isChunked { trailer = Array("0\r\n\r\n".utf8) }
    }

    /// The wire form of one segment: raw, or as one chunk.
    func encode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard isChunked else { return Array(bytes) }
        return Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10]
    }

    private static func cut(
        _ payload: ArraySlice<UInt8>,
        framing: LoopbackServer.Response.Framing,
        faults: LoopbackServer.Response.Faults
    ) -> [Segment] {
        var pieceSize = payload.count
        if case .chunked(let chunkSize) = framing { pieceSize = chunkSize }
        if let drip = faults.drip { pieceSize = min(pieceSize, drip.chunkSize) }
        var segments: [Segment] = []
        var start = payload.startIndex
        while start < payload.endIndex {
            var end = min(start + max(pieceSize, 1), payload.endIndex)
            var pauseBefore: TimeInterval = 0
            if start > payload.startIndex, let drip = faults.drip { pauseBefore = drip.interval }
            if let pause = faults.pause {
                if pause.afterBytes == start { pauseBefore += pause.seconds }
                if pause.afterBytes > start, pause.afterBytes < end { end = pause.afterBytes }
            }
            segments.append(Segment(bytes: payload[start..<end], pauseBefore: pauseBefore))
            start = end
        }
        return segments
    }
}
