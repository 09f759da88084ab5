import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns a route and its parameters into a `URLRequest`, refusing anything that should not
/// reach the wire. Linux's URLSession would send an unvalidated method or header as given
/// (request splitting, header injection), so every check happens here, before any I/O.
enum URLRequestFactory {
    /// The draft after the parameters wrote into it (preprocessing has already run).
    static func makeDraft(
        route: Route,
        parameters: (any RequestParameters)?,
        headers: HTTPHeaders,
        encoding: ParameterEncoding
    ) throws -> RequestDraft {
        var draft = RequestDraft(
            method: route.method,
            url: route.url,
            headers: headers.merging(parameters?.headers ?? [:]),
            timeout: parameters?.timeout,
            encoding: encoding
        )
        try parameters?.encode(into: &draft)
        return draft
    }

    /// Validates a draft and makes the `URLRequest`.
    static func makeURLRequest(from draft: RequestDraft, route: Route) throws -> URLRequest {
        guard draft.method.isValid else {
            throw APIError.invalidRequest(
                reason: "method \(draft.method.rawValue.debugDescription) is not a valid token")
        }
        let url = try validatedURL(draft.url, baseURL: route.baseURL)
        if draft.method.forbidsBody, draft.hasBody {
            throw APIError.invalidRequest(
                reason: "a \(draft.method) request cannot have a body; send its parameters with URLParameters"
            )
        }
        var headers = draft.headers
        if draft.method.forbidsBody {
            headers.remove(name: "Content-Type")
        } else if draft.hasBody, !headers.contains("Content-Type") {
            // Linux URLSession would otherwise label any body as a form.
            headers["Content-Type"] = "application/octet-stream"
        }
        try headers.validate()

        var request = URLRequest(url: url)
        // GET is a new request's method already; FoundationNetworking's setter showed in
        // profiles (about 1 % of a small request's CPU).
        if draft.method.rawValue != "GET" { request.httpMethod = draft.method.rawValue }
        // All at once: FoundationNetworking's `setValue(_:forHTTPHeaderField:)` searches the
        // fields already set (about 1.4 % of a small request's CPU) and re-cases the name
        // (`X-GitHub-Api-Version` went out as `X-Github-Api-Version`). The names of `headers` are
        // already distinct, ignoring case, with repeated values joined into the first spelling.
        if headers.count > 0 { request.allHTTPHeaderFields = headers.dictionary }
        request.httpBody = draft.body
        if let timeout = draft.timeout {
            // URLSession on Linux truncates fractions (0.5 s fires at once): round up here; the
            // framework enforces the exact limit itself.
            request.timeoutInterval = max(1, timeout.rounded(.up))
        }
        return request
    }

    /// The last base URL parsed: parsing it again for each request showed in profiles (about
    /// 2 % of the CPU of a small request).
    private static let lastBaseURL = LastValue<String, URL?>()

    private static func parsedBaseURL(_ text: String) -> URL? {
        lastBaseURL.value(for: text) { URL(string: $0) }
    }

    /// A URL to validate, with the base URL it is checked against.
    private struct URLToValidate: Equatable {
        var text: String
        var baseURL: String?
    }

    /// The last URL validated: parsing and checking it cost about 2 % of the CPU of a small
    /// request.
    private static let lastValidated = LastValue<URLToValidate, URL>()

    private static func validatedURL(_ text: String, baseURL: String?) throws -> URL {
        try lastValidated.value(for: URLToValidate(text: text, baseURL: baseURL)) {
            try checkedURL($0.text, baseURL: $0.baseURL)
        }
    }

    private static func checkedURL(_ text: String, baseURL: String?) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty
        else {
            throw APIError.invalidRequest(
                reason: "\(Redaction.url(text).debugDescription) is not a valid absolute URL")
        }
        guard scheme == "http" || scheme == "https" else {
            let hint =
                scheme.hasSuffix("+unix")
                ? ": for a Unix domain socket, name a host in CurlTransport(unixSockets:) and use an http URL to it"
                : ""
            throw APIError.invalidRequest(
                reason: "URL scheme \(scheme.debugDescription) is not http or https" + hint)
        }
        if let baseURL {
            guard let base = parsedBaseURL(baseURL), base.host != nil else {
                throw APIError.invalidRequest(
                    reason: "base URL \(Redaction.url(baseURL).debugDescription) is not a valid URL")
            }
            guard url.hasSameOrigin(as: base) else {
                throw APIError.invalidRequest(
                    reason:
                        "\(Redaction.url(text).debugDescription) leaves the API's origin \(Redaction.url(baseURL))"
                )
            }
        }
        return url
    }
}

extension Route {
    /// The `URLRequest` this route and its parameters make, as an API would send it (without
    /// running the parameters' ``RequestParameters/preprocess()``).
    /// - Parameters:
    ///   - parameters: Query, body and headers.
    ///   - headers: Headers sent with every request; the parameters' own win.
    ///   - encoding: How query and form parameters are written.
    /// - Returns: The request.
    /// - Throws: ``APIError/invalidRequest(reason:)`` or ``APIError/encodingFailed(reason:underlying:)``.
    public func makeURLRequest(
        parameters: (any RequestParameters)? = nil,
        headers: HTTPHeaders = [:],
        encoding: ParameterEncoding = ParameterEncoding()
    ) throws -> URLRequest {
        let prepared = try prepareRequest(parameters: parameters, headers: headers, encoding: encoding)
        if prepared.bodyStream != nil {
            throw APIError.invalidRequest(
                reason: "a streamed body is only sent by an API, not made into a URLRequest")
        }
        guard let file = prepared.bodyFile else { return prepared.urlRequest }
        // A file body is read into memory here (this is for inspection); AbstractAPI streams it.
        defer { if file.isTemporary { try? FileManager.default.removeItem(at: file.url) } }
        var request = prepared.urlRequest
        do {
            request.httpBody = try Data(contentsOf: file.url)
        } catch {
            throw APIError.encodingFailed(reason: "could not read the body file", underlying: error)
        }
        return request
    }

    /// The request and, for bodies streamed from disk, the file to upload.
    func prepareRequest(
        parameters: (any RequestParameters)?,
        headers: HTTPHeaders,
        encoding: ParameterEncoding
    ) throws -> (urlRequest: URLRequest, bodyFile: RequestDraft.BodyFile?, bodyStream: BodyStream?) {
        let draft = try URLRequestFactory.makeDraft(
            route: self, parameters: parameters, headers: headers, encoding: encoding)
        do {
            return (
                try URLRequestFactory.makeURLRequest(from: draft, route: self), draft.bodyFile,
                draft.bodyStream
            )
        } catch {
            if let file = draft.bodyFile, file.isTemporary {
                try? FileManager.default.removeItem(at: file.url)
            }
            throw error
        }
    }
}
