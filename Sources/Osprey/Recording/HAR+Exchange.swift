import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HAR.Entry {
    /// An entry for one exchange, unredacted (see ``HARRedaction``).
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - requestBody: Its body, when known (a file or a stream is not read again).
    ///   - response: The response's head.
    ///   - responseBody: Its body, nil when it was not kept.
    ///   - chunks: The sizes of the pieces a streamed body arrived in.
    ///   - chunkTimes: When each piece arrived, in milliseconds after `started`.
    ///   - started: When the request started.
    ///   - duration: Seconds from the start to the end of the response, when there are no metrics.
    ///   - metrics: The transport's measurements.
    public init(
        request: URLRequest, requestBody: Data?, response: HTTPURLResponse, responseBody: Data?,
        chunks: [Int]? = nil, chunkTimes: [Double]? = nil, started: Date, duration: TimeInterval = 0,
        metrics: RequestMetrics? = nil
    ) {
        let timings = metrics.map(HAR.Timings.init) ?? HAR.Timings(send: 0, wait: duration * 1000, receive: 0)
        let version = metrics?.httpVersion ?? "HTTP/1.1"
        self.init(
            startedDateTime: HAR.timestamp(started), time: timings.total,
            request: HAR.Request(request, body: requestBody, httpVersion: version),
            response: HAR.Response(
                response, body: responseBody, chunks: chunks, chunkTimes: chunkTimes, httpVersion: version),
            timings: timings)
        if let answered = response.url?.absoluteString, answered != self.request.url {
            self.response.url = answered
        }
    }

    /// An entry for an exchange as a transport delivered it, read without making Foundation's
    /// `HTTPURLResponse` when the transport gave parts (it is costly on Linux).
    package init(
        request: URLRequest, requestBody: Data?, response: TransportResponse, chunks: [Int]?,
        chunkTimes: [Double]? = nil, responseBody: Data?,
        started: Date, duration: TimeInterval
    ) {
        let metrics = response.metrics
        let timings = metrics.map(HAR.Timings.init) ?? HAR.Timings(send: 0, wait: duration * 1000, receive: 0)
        let version = metrics?.httpVersion ?? "HTTP/1.1"
        let url = response.head.url
        self.init(
            startedDateTime: HAR.timestamp(started), time: timings.total,
            request: HAR.Request(request, body: requestBody, httpVersion: version),
            response: HAR.Response(
                status: response.statusCode, headers: response.headers, url: url, body: responseBody,
                chunks: chunks, chunkTimes: chunkTimes,
                httpVersion: version),
            timings: timings)
        if let answered = url?.absoluteString, answered != self.request.url {
            self.response.url = answered
        }
    }

    /// When the request started, read back from ``startedDateTime``.
    public var startDate: Date? { HAR.date(startedDateTime) }

    /// The entries of the redirects followed before a response (``TransportResponse/redirects``),
    /// oldest first: each hop's request and its head, with no body and no time of its own. The
    /// first hop is `request`; a later hop carries `requestBody` only if it kept the method
    /// (a `307` or `308`), as the transport sent it.
    package static func redirectEntries(
        _ redirects: [TransportResponse], request: URLRequest, requestBody: Data?, started: Date
    ) -> [HAR.Entry] {
        redirects.enumerated().map { index, hop in
            let sent = index == 0 ? request : hop.request
            return HAR.Entry(
                request: sent, requestBody: body(requestBody, of: sent, after: request),
                response: hop, chunks: nil, responseBody: Data(), started: started, duration: 0)
        }
    }

    /// The body `sent` carried on the way to a response to `original`: `body` when it kept the
    /// original's method (the original itself, or after a `307` or `308`), else none (a `303`,
    /// or a `301` or `302` after a POST, goes on as a GET without it).
    package static func body(_ body: Data?, of sent: URLRequest, after original: URLRequest) -> Data? {
        sent.httpMethod == original.httpMethod ? body : nil
    }
}

extension HAR {
    /// `2026-12-05T08:00:00.123Z`: the ISO 8601 form the format asks for.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// A timestamp read back, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// Whether a body of `mimeType` is written as text (when it is valid UTF-8).
    static func isText(_ mimeType: String) -> Bool {
        let type =
            mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }?
            .lowercased() ?? ""
        return type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml")
            || [
                "application/json", "application/xml", "application/javascript",
                "application/x-www-form-urlencoded",
                "application/graphql", "application/x-ndjson",
            ].contains(type)
    }

    /// A body's text and encoding: the text itself when it is text, else base64.
    static func text(of body: Data, mimeType: String) -> (text: String, encoding: String?) {
        if isText(mimeType) || body.isEmpty, let text = String(data: body, encoding: .utf8) {
            return (text, nil)
        }
        return (body.base64EncodedString(), "base64")
    }
}

extension HAR.Request {
    /// The archive's form of `request`.
    package init(_ request: URLRequest, body: Data?, httpVersion: String) {
        let url = request.url
        var headers = (request.allHTTPHeaderFields ?? [:]).sorted {
            $0.key.lowercased() < $1.key.lowercased()
        }
        .map { HAR.Field(name: $0.key, value: $0.value) }
        if let body, !body.isEmpty, !headers.contains(where: { HTTPHeaders.same($0.name, "Content-Length") })
        {
            headers.append(HAR.Field(name: "Content-Length", value: String(body.count)))
        }
        let query =
            url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }?.map {
                HAR.Field(name: $0.name, value: $0.value ?? "")
            } ?? []
        let mimeType = request.value(forHTTPHeaderField: "Content-Type") ?? "application/octet-stream"
        let postData = body.map { body -> HAR.PostData in
            let (text, encoding) = HAR.text(of: body, mimeType: mimeType)
            return HAR.PostData(
                mimeType: mimeType, text: text, encoding: encoding,
                params: mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded")
                    ? HAR.formFields(text) : HAR.Multipart(body, mimeType: mimeType)?.params)
        }
        var withoutFragment = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
        withoutFragment?.fragment = nil
        self.init(
            method: request.httpMethod ?? "GET", url: withoutFragment?.string ?? url?.absoluteString ?? "",
            httpVersion: httpVersion, headers: headers, queryString: query, postData: postData,
            bodySize: body?.count ?? -1)
    }
}

extension HAR.Response {
    /// The archive's form of `response`.
    init(_ response: HTTPURLResponse, body: Data?, chunks: [Int]?, chunkTimes: [Double]?, httpVersion: String)
    {
        self.init(
            status: response.statusCode, headers: HTTPHeaders(response), url: response.url, body: body,
            chunks: chunks, chunkTimes: chunkTimes, httpVersion: httpVersion)
    }

    /// The archive's form of a response's parts.
    init(
        status: Int, headers fields: HTTPHeaders, url: URL?, body: Data?, chunks: [Int]?,
        chunkTimes: [Double]?, httpVersion: String
    ) {
        let headers = fields.map { HAR.Field(name: $0.name, value: $0.value) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
        let mimeType = fields["Content-Type"] ?? ""
        let content: HAR.Content
        if let body {
            let (text, encoding) = HAR.text(of: body, mimeType: mimeType)
            content = HAR.Content(
                size: body.count, mimeType: mimeType, text: text, encoding: encoding, chunks: chunks,
                chunkTimes: chunkTimes)
        } else {
            content = HAR.Content(
                size: -1, mimeType: mimeType, text: nil, chunks: chunks, chunkTimes: chunkTimes)
        }
        self.init(
            status: status, httpVersion: httpVersion, headers: headers, content: content,
            redirectURL: fields["Location"] ?? "", bodySize: body?.count ?? -1)
    }
}

extension HAR {
    /// The fields of a form body, decoded.
    static func formFields(_ text: String) -> [Param] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            return Param(name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : nil)
        }
    }
}
