import Foundation

extension LoopbackServer.Response {
    /// A resource served the way a file server does, for download and resume tests: `200` with
    /// the whole body, or `206` with `Content-Range` for a `Range: bytes=N-` request (when its
    /// `If-Range` matches the validator, or it has none), or `416` for a start past the end.
    ///
    /// ```swift
    /// server.route("/file") { request in .ranged(data, for: request, etag: "\"v1\"") }
    /// ```
    /// - Parameters:
    ///   - data: The whole body.
    ///   - request: The request being answered.
    ///   - etag: The `ETag`, quotes included (`"v1"`, or `W/"v1"` for a weak one).
    ///   - lastModified: The `Last-Modified` date, as sent.
    ///   - honoursRanges: False to ignore `Range` (always `200`), as some servers do.
    public static func ranged(
        _ data: Data, for request: LoopbackServer.Request, etag: String? = nil, lastModified: String? = nil,
        honoursRanges: Bool = true
    ) -> LoopbackServer.Response {
        var headers: [LoopbackServer.HeaderField] = []
        if let etag { headers.append(.init("ETag", etag)) }
        if let lastModified { headers.append(.init("Last-Modified", lastModified)) }
        if honoursRanges { headers.append(.init("Accept-Ranges", "bytes")) }
        guard honoursRanges, let start = rangeStart(of: request) else {
            return LoopbackServer.Response(headers: headers, body: data)
        }
        if let condition = request.value(forHeader: "If-Range"), condition != etag, condition != lastModified
        {
            return LoopbackServer.Response(headers: headers, body: data)
        }
        guard start < data.count else {
            return LoopbackServer.Response(
                status: 416, headers: headers + [.init("Content-Range", "bytes */\(data.count)")])
        }
        return LoopbackServer.Response(
            status: 206,
            headers: headers + [.init("Content-Range", "bytes \(start)-\(data.count - 1)/\(data.count)")],
            body: data.subdata(in: start..<data.count))
    }

    /// N of `Range: bytes=N-`, the only form Osprey sends.
    private static func rangeStart(of request: LoopbackServer.Request) -> Int? {
        guard let range = request.value(forHeader: "Range"), range.hasPrefix("bytes="), range.hasSuffix("-")
        else {
            return nil
        }
        return Int(range.dropFirst("bytes=".count).dropLast())
    }
}
